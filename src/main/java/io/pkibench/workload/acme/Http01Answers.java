package io.pkibench.workload.acme;

/**
 * Where an order's http-01 challenge is answered before the CA is told it is ready: nowhere, when
 * the CA is set to pass every challenge ({@link #NONE}: Pebble's always-valid), or pkibench's own
 * listener ({@link Http01Listener}), which the CA really fetches.
 */
interface Http01Answers extends AutoCloseable {
  /** Serve {@code keyAuthorization} at {@code /.well-known/acme-challenge/TOKEN} from now on. */
  void offer(String token, String keyAuthorization);

  /** Stop serving {@code token}: its challenge is over, valid or not. */
  void withdraw(String token);

  @Override
  void close();

  /** The CA passes every challenge: nothing to serve. */
  Http01Answers NONE =
      new Http01Answers() {
        @Override
        public void offer(String token, String keyAuthorization) {}

        @Override
        public void withdraw(String token) {}

        @Override
        public void close() {}
      };
}
