package io.pkibench.study;

import static io.pkibench.study.PqcStudy.CLIENT;
import static io.pkibench.study.PqcStudy.GROUPS;
import static io.pkibench.study.PqcStudy.MUTUAL_SERVICE;
import static io.pkibench.study.PqcStudy.ROUND;
import static io.pkibench.study.PqcStudy.TLS_SERVICE;
import static io.pkibench.study.PqcStudy.handshakeLabel;
import static io.pkibench.study.PqcStudy.label;

import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.formats.tls.TlsClient;
import io.pkibench.formats.tls.TlsConnection;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The pqc study's post-run checks, run with its services still up: the handshake bytes each way per
 * group ({@link HandshakeBytes}) and the cores each study's bound operation needs today and after
 * the migration ({@link CapacityAfterMigration}).
 */
final class PqcChecks {
  private PqcChecks() {}

  /**
   * Opens a connection per group to each running echo server, the mutual one with the test PKI's
   * client identity, reads the group from the session, and counts each way's handshake bytes.
   */
  static final class HandshakeBytes implements PostCheck {
    private final Path pkiDir;

    HandshakeBytes(Path pkiDir) {
      this.pkiDir = pkiDir;
    }

    @Override
    public String name() {
      return "TLS 1.3 handshake bytes on the socket, group read from the session";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) throws Exception {
      URI target = URI.create(services.url(TLS_SERVICE));
      // the service's own PKI, as the study's steps trust it
      TestPki pki = TestPki.open(pkiDir);
      var root = pki.certificate("root-ca");
      var identity = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key(CLIENT);
      List<String> lines = new ArrayList<>();
      boolean allNegotiated = true;
      for (boolean mutual : List.of(false, true)) {
        URI server = mutual ? URI.create(services.url(MUTUAL_SERVICE)) : target;
        for (String group : GROUPS) {
          var context =
              new TlsClient(
                      TlsEngine.OPENSSL,
                      List.of(root),
                      mutual ? identity : null,
                      List.of("TLSv1.3"),
                      List.of(),
                      List.of(group))
                  .context();
          try (TlsConnection c =
              TlsConnection.handshake(
                  Connection.connect(
                      new InetSocketAddress(server.getHost(), server.getPort()), 10_000),
                  TlsEngine.engine(context))) {
            allNegotiated &= group.equalsIgnoreCase(c.group());
            // TLS 1.3: the server checks the client's certificate after the client's last flight,
            // so one answered
            // request proves it took it (a refused certificate closes the connection there)
            if (mutual) {
              byte[] request =
                  Arrays.copyOf(
                      EchoProtocol.header(EchoProtocol.REQUEST, 1, 1),
                      EchoProtocol.HEADER_BYTES + 1);
              c.write(request, 0, request.length);
              c.readFully(new byte[1], 0, 1);
            }
            lines.add(
                (mutual ? "mutual " : "")
                    + group
                    + ": negotiated "
                    + c.group()
                    + ", client→server "
                    + c.handshakeBytesSent()
                    + " B, server→client "
                    + c.handshakeBytesReceived()
                    + " B");
          }
        }
      }
      String detail = String.join("; ", lines);
      return allNegotiated
          ? Outcome.pass(detail)
          : Outcome.fail("a group other than the one offered was negotiated: " + detail);
    }
  }

  /**
   * The operation each study is bound by, today's against its post-quantum replacement, both
   * measured in this run.
   */
  record Migration(
      String study,
      String bound,
      String todayStep,
      String afterStep,
      double targetPerSecond,
      String target) {}

  static List<Migration> migrations() {
    String rsa = label("sign", "rsa2048", "software:jdk");
    String mlDsa = label("sign", "ml-dsa-65", "software:jdk");
    String cmsRsa = label("cms-sign", "rsa2048", "software:jdk");
    String cmsMlDsa = label("cms-sign", "ml-dsa-65", "software:jdk");
    return List.of(
        new Migration(
            "restpki",
            "the signer's CMS SignedData per CAdES (RSA-2048 -> ML-DSA-65, RFC 9882)",
            cmsRsa,
            cmsMlDsa,
            1000,
            "1,000 signatures/s (illustrative)"),
        new Migration(
            "pix",
            "the SPI message's RSA-2048 signature",
            rsa,
            mlDsa,
            4000,
            "4,000 signatures/s (the original's)"),
        new Migration(
            "pix",
            "the mutual handshake's key exchange (x25519 -> X25519MLKEM768, the client presenting the test PKI's RSA-2048"
                + " tls-client certificate)",
            handshakeLabel("x25519", true),
            handshakeLabel("X25519MLKEM768", true),
            2000,
            "2,000 handshakes/s (the original's); server CPU per handshake; an ML-DSA-65 client key needs an engine with ML-DSA in"
                + " TLS, which neither of pkibench's has"),
        new Migration(
            "rsfn",
            "the envelope's RSA-2048 signature",
            rsa,
            mlDsa,
            1000,
            "1,000 envelopes/s (illustrative)"),
        new Migration(
            "pec",
            "the provider's S/MIME signature, CMS SignedData (RSA-2048 -> ML-DSA-65, RFC 9882)",
            cmsRsa,
            cmsMlDsa,
            100,
            "100 mails/s (illustrative)"),
        new Migration(
            "ssl",
            "the full handshake (x25519 -> X25519MLKEM768)",
            handshakeLabel("x25519"),
            handshakeLabel("X25519MLKEM768"),
            2000,
            "2,000 handshakes/s (illustrative)"));
  }

  /** Cores needed today and after, from the two steps' operations per CPU-second. */
  static final class CapacityAfterMigration implements PostCheck {
    @Override
    public String name() {
      return "capacity after migration: cores for the target rate, today vs post-quantum";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) {
      List<String> lines = new ArrayList<>();
      boolean all = true;
      for (Migration m : migrations()) {
        Double today = opsPerCpuSecond(result, m.todayStep());
        Double after = opsPerCpuSecond(result, m.afterStep());
        if (today == null || after == null) {
          all = false;
          lines.add(m.study() + ": " + m.bound() + " not measured");
          continue;
        }
        double coresToday = m.targetPerSecond() / today;
        double coresAfter = m.targetPerSecond() / after;
        lines.add(
            String.format(
                Locale.ROOT,
                "%s (%s, %s): %.2f cores today, %.2f after, × %.2f",
                m.study(),
                m.bound(),
                m.target(),
                coresToday,
                coresAfter,
                coresAfter / coresToday));
      }
      String detail = String.join("; ", lines);
      return all ? Outcome.pass(detail) : Outcome.fail(detail);
    }
  }

  /**
   * Operations per CPU-second of the step labelled {@code label}, or pooled over its rounds ({@code
   * label · round i/n}: every round's operations over every round's CPU seconds, from each one's
   * measured level); null when none has one.
   */
  static Double opsPerCpuSecond(RunResult result, String label) {
    double operations = 0;
    double cpuSeconds = 0;
    for (WorkloadResult w : result.workloads()) {
      if (w.step() == null || w.step().probe() || w.levels().isEmpty()) continue;
      String l = w.step().label();
      if (!l.equals(label) && !l.startsWith(label + ROUND)) continue;
      LevelResult level = w.levels().get(w.levels().size() - 1);
      Double perCpu = level.cpu().opsPerCpuSecond();
      if (perCpu == null || perCpu <= 0 || level.cpu().seconds() <= 0) continue;
      operations += perCpu * level.cpu().seconds();
      cpuSeconds += level.cpu().seconds();
    }
    return cpuSeconds > 0 ? operations / cpuSeconds : null;
  }
}
