package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.TestKeys;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pkibench rsfn pack|unpack|inspect} in-process: test-PKI aliases, PEM files of both key
 * formats, refusals and bad flags.
 */
class RsfnCommandTest {
  @TempDir Path dir;
  StringWriter out, err;
  InstantSource clock = InstantSource.system();

  @BeforeEach
  void fresh() {
    out = new StringWriter();
    err = new StringWriter();
  }

  int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("PKIBENCH_PKI", dir.resolve("pki").toString()),
            clock,
            dir,
            false);
    return Main.execute(ctx, args);
  }

  void copy(String resource) throws Exception {
    try (InputStream in = getClass().getResourceAsStream("/io/pkibench/formats/rsfn/" + resource)) {
      Files.write(dir.resolve(resource), in.readAllBytes());
    }
  }

  @Test
  void aliases_packUtf16_unpackFindsTheSender_inspectPrintsEveryField() throws Exception {
    TestKeys.in(dir);
    String text = "<?xml version=\"1.0\"?><msg>Olá, RSFN — ação</msg>\n";
    Files.writeString(dir.resolve("msg.xml"), text, StandardCharsets.UTF_8);
    assertEquals(
        0,
        run(
            "rsfn",
            "pack",
            "--from",
            "signer-rsa2048-1",
            "--to",
            "signer-rsa2048-2",
            "--in",
            "msg.xml",
            "--out",
            "msg.rsfn",
            "--utf16"),
        err.toString());
    assertTrue(out.toString().contains("C04 0"), out.toString());
    byte[] envelope = Files.readAllBytes(dir.resolve("msg.rsfn"));
    assertEquals(
        588 + text.length() * 2 + 16,
        envelope.length,
        "UTF-16BE doubles these characters, GCM adds its tag");

    assertEquals(0, run("rsfn", "inspect", "msg.rsfn"));
    for (String field :
        new String[] {
          "C01", "C02", "C03", "C04", "C05", "C06", "C07", "C08", "C09", "C10", "C11", "C12", "C13",
          "C14", "C15"
        }) {
      assertTrue(out.toString().contains(field + " "), field + " printed:\n" + out);
    }
    assertTrue(out.toString().contains("0x51 (pkibench test PKI intermediate-a)"), out.toString());

    assertEquals(
        0,
        run(
            "rsfn",
            "unpack",
            "--as",
            "signer-rsa2048-2",
            "--in",
            "msg.rsfn",
            "--out",
            "back.xml",
            "--utf16"),
        out + "\n" + err);
    assertEquals(text, Files.readString(dir.resolve("back.xml"), StandardCharsets.UTF_8));
    assertTrue(
        out.toString().contains("accepted") && out.toString().contains("signer-rsa2048-1"),
        out.toString());

    assertEquals(
        1,
        run(
            "rsfn",
            "unpack",
            "--as",
            "signer-rsa2048-3",
            "--in",
            "msg.rsfn",
            "--out",
            "nothing.xml",
            "--answer",
            "answer.bin"));
    assertTrue(out.toString().contains("refused: C03 0x07"), "addressed to another key: " + out);
    assertFalse(
        Files.exists(dir.resolve("nothing.xml")), "nothing written from a refused envelope");
    assertEquals(0x07, Files.readAllBytes(dir.resolve("answer.bin"))[3]);

    envelope[332 + 9] ^= 0x04;
    Files.write(dir.resolve("bad.rsfn"), envelope);
    assertEquals(1, run("rsfn", "unpack", "--as", "signer-rsa2048-2", "--in", "bad.rsfn"));
    assertTrue(out.toString().contains("refused: C03 0x0B"), out.toString());

    Files.writeString(dir.resolve("big.txt"), "RSFN ".repeat(20_000));
    assertEquals(
        0,
        run(
            "rsfn",
            "pack",
            "--from",
            "signer-rsa2048-1",
            "--to",
            "signer-rsa2048-2",
            "--in",
            "big.txt",
            "--out",
            "big.rsfn",
            "--gzip"));
    assertTrue(
        Files.size(dir.resolve("big.rsfn")) < 2_000,
        "compressed: " + Files.size(dir.resolve("big.rsfn")));
    assertEquals(
        0,
        run("rsfn", "unpack", "--as", "signer-rsa2048-2", "--in", "big.rsfn", "--out", "big.back"));
    assertArrayEquals(
        Files.readAllBytes(dir.resolve("big.txt")), Files.readAllBytes(dir.resolve("big.back")));

    assertEquals(
        0,
        run(
            "rsfn",
            "pack",
            "--from",
            "signer-rsa2048-revoked",
            "--to",
            "signer-rsa2048-2",
            "--in",
            "msg.xml",
            "--out",
            "revoked.rsfn"));
    assertEquals(1, run("rsfn", "unpack", "--as", "signer-rsa2048-2", "--in", "revoked.rsfn"));
    assertTrue(
        out.toString().contains("refused: C03 0x11") && out.toString().contains("revoked"),
        "the test PKI's CRLs are checked: " + out);
  }

  @Test
  void pemFiles_pkcs1AndPkcs8Keys_roundTrip_andOpensslVerifiesTheClearOne() throws Exception {
    for (String f :
        new String[] {
          "sender.pem", "sender.key", "recipient.pem", "recipient.key", "serpro-revoked.crl"
        }) copy(f);
    clock = InstantSource.fixed(Instant.parse("2027-06-01T00:00:00Z"));
    Files.writeString(dir.resolve("msg.xml"), "<msg>pem</msg>");
    assertEquals(
        0,
        run(
            "rsfn",
            "pack",
            "--from-cert",
            "sender.pem",
            "--from-key",
            "sender.key",
            "--to-cert",
            "recipient.pem",
            "--in",
            "msg.xml",
            "--out",
            "m.rsfn"),
        err.toString());
    assertEquals(
        0,
        run(
            "rsfn",
            "unpack",
            "--from-cert",
            "sender.pem",
            "--to-cert",
            "recipient.pem",
            "--to-key",
            "recipient.key",
            "--in",
            "m.rsfn",
            "--out",
            "m.back"),
        out + "\n" + err);
    assertEquals("<msg>pem</msg>", Files.readString(dir.resolve("m.back")));
    assertTrue(
        err.toString().contains("revocation of the sender certificate not checked"),
        "said, not skipped silently: " + err);
    assertTrue(out.toString().contains("C10 recipient CA       0x02 (Certisign)"), out.toString());
    assertEquals(
        1,
        run(
            "rsfn",
            "unpack",
            "--from-cert",
            "sender.pem",
            "--to-cert",
            "recipient.pem",
            "--to-key",
            "recipient.key",
            "--in",
            "m.rsfn",
            "--crl",
            "serpro-revoked.crl"));
    assertTrue(out.toString().contains("C03 0x11"), out.toString());
  }

  @Test
  void badFlagsAndFiles_exit2_namingEachProblemAtOnce() throws Exception {
    copy("sender.pem");
    copy("recipient.key");
    Files.writeString(dir.resolve("empty.xml"), "");
    assertEquals(
        2,
        run(
            "rsfn",
            "pack",
            "--from-cert",
            "sender.pem",
            "--from-key",
            "recipient.key",
            "--to-cert",
            "missing.pem",
            "--in",
            "empty.xml",
            "--out",
            "x.rsfn"));
    String e = err.toString();
    assertTrue(e.contains("--in empty.xml: the file is empty"), e);
    assertTrue(e.contains("--to-cert missing.pem: cannot read it"), e);
    assertTrue(e.contains("--from-key recipient.key: this key does not belong to --from-cert"), e);
    assertFalse(Files.exists(dir.resolve("x.rsfn")));
    assertEquals(2, run("rsfn", "pack", "--to", "a", "--in", "m", "--out", "o"));
    assertTrue(err.toString().contains("--from"), "a missing party is named: " + err);
    assertEquals(2, run("rsfn", "inspect", "nope.rsfn"));
    assertTrue(err.toString().contains("nope.rsfn: cannot read it"), err.toString());
    Files.write(dir.resolve("short.rsfn"), new byte[10]);
    assertEquals(1, run("rsfn", "inspect", "short.rsfn"));
    assertTrue(out.toString().contains("shorter than the 588"), out.toString());
    assertEquals(0, run("rsfn", "pack", "--help"));
    assertTrue(
        out.toString().contains("Examples:")
            && out.toString().contains("pkibench rsfn pack --from signer-rsa2048-1"),
        out.toString());
  }

  @Test
  void unpack_endlessInputOrAHostileSerial_refusedWithAClearMessageAndPrintedEscaped()
      throws Exception {
    TestKeys.in(dir);
    assertEquals(
        2,
        run("rsfn", "unpack", "--as", "signer-rsa2048-2", "--in", "/dev/zero", "--out", "zero.xml"),
        "a bounded read, not out of memory");
    assertTrue(err.toString().contains("--in /dev/zero: more than"), err.toString());
    Files.writeString(dir.resolve("msg.xml"), "<msg/>");
    assertEquals(
        0,
        run(
            "rsfn",
            "pack",
            "--from",
            "signer-rsa2048-1",
            "--to",
            "signer-rsa2048-2",
            "--in",
            "msg.xml",
            "--out",
            "msg.rsfn"),
        err.toString());
    byte[] envelope = Files.readAllBytes(dir.resolve("msg.rsfn"));
    // C13, the sender's serial, made of a terminal escape sequence (set the window title, then
    // ring)
    byte[] hostile =
        "\u001b]0;pwned\u0007\u001b[2J0123456789abcdef01".getBytes(StandardCharsets.ISO_8859_1);
    System.arraycopy(hostile, 0, envelope, 44, 32);
    Files.write(dir.resolve("hostile.rsfn"), envelope);
    run("rsfn", "unpack", "--as", "signer-rsa2048-2", "--in", "hostile.rsfn", "--out", "h.xml");
    String said = out.toString() + err.toString();
    assertFalse(
        said.contains("\u001b") || said.contains("\u0007"),
        "no raw control byte reaches the terminal: " + said);
    run("rsfn", "inspect", "hostile.rsfn");
    assertFalse(out.toString().contains("\u001b"), out.toString());
  }
}
