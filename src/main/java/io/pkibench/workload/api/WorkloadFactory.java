package io.pkibench.workload.api;

import io.pkibench.files.InputFile;
import java.util.List;
import java.util.Map;

/**
 * A named workload type as {@code pkibench list} shows it and {@code pkibench run NAME} creates it.
 */
public interface WorkloadFactory {
  String name();

  String description();

  List<ParamSpec> params();

  /** False for workloads that never touch a key, so {@code --keys} need not be opened for them. */
  default boolean usesKeys() {
    return true;
  }

  /**
   * Problems of these parameters with this key source that a parameter's list of allowed values
   * cannot say (a size out of range, a mode that needs another source), each naming the flag: found
   * before anything runs rather than when the workload is created.
   */
  default List<String> problems(Params params, String keys) {
    return List.of();
  }

  /**
   * Lines the run's table must show whatever happens, because they qualify its figures (a TSA's
   * tokens not verified for want of a trust bundle): recorded in the result with the workload.
   */
  default List<String> notes(Params params) {
    return List.of();
  }

  /**
   * The files these parameters name whose text the result keeps (an {@code api} spec), each with
   * every secret {@code env} or a file gives it blanked: read when the workload starts.
   */
  default List<InputFile> inputs(Params params, Map<String, String> env) {
    return List.of();
  }

  /**
   * The outside services these parameters make each operation call, each as its flag and URL
   * ("--target https://HOST:8443", "-p tsa http://HOST/tsa"): before a run, one real operation of a
   * workload that names any is run against them, so that a wrong address stops the run at once,
   * named, and no service is probed with anything but what it serves (a bare connect and close
   * leaves OpenSSL's OCSP responder waiting on it for good). By default the {@code --target} given,
   * unless the target's default keeps the work in this process (tls-handshake's in-memory peer).
   */
  default List<String> services(Params params) {
    ParamSpec target =
        params().stream().filter(p -> p.name().equals(ParamSpec.TARGET)).findFirst().orElse(null);
    if (target == null) return List.of();
    String url = params.get(ParamSpec.TARGET);
    if (url.isBlank() || !target.defaultValue().isBlank() && url.equals(target.defaultValue()))
      return List.of();
    return List.of("--target " + url);
  }

  /**
   * Problems only the number of workers reveals (more identities asked than {@code -p
   * identities=DIR} holds), each naming {@code level}, the flag of the plan's largest level: asked
   * before anything starts with that level's {@code workers}, since a workload, made once per
   * level, is not told how many workers will ask it for operations.
   */
  default List<String> workerProblems(Params params, int workers, String level) {
    return List.of();
  }

  /**
   * Connections one worker holds open at once with these parameters (0: none, the work stays in
   * this process): what the process's open-file limit and ports are checked against before a run
   * ({@link SocketBudget}).
   */
  default int socketsPerWorker(Params params) {
    return 0;
  }

  /**
   * Local addresses these parameters let the connections leave from ({@link SourceAddresses}): each
   * brings its own ephemeral ports towards one server address. 1 for workloads that hold no socket
   * or cannot choose.
   */
  default long sourceAddresses(Params params) {
    return 1;
  }

  Workload create(WorkloadContext context, Params params) throws Exception;
}
