package io.pkibench.formats.apispec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A spec's problems all at once, each with its line; templates and filters on known values. */
class SpecReaderTest {
  @TempDir Path dir;

  @Test
  void read_specWithSeveralProblems_reportsEveryOneWithItsLine() {
    String text =
        """
        document: {size: lots}
        headers: {Authorization: "Bearer ${env.SIGN_TOKEN | rot13}"}
        steps:
          - request: POST /v1/documents/${id}
            json: {content: "${document | base64}"}
            expect: {status: 2001}
            capture: {id: id}
          - request: FETCH /x
          - sign: {input: "${document}", alg: SHA256withRSA, key: signer}
        verify:
          - signature: {value: "${sig}", over: "${document}", alg: SHA256withNOTHING, key: missing.pem}
          - pades: {value: "${sig}"}
          - xades: {value: "${document}", trust: missing.pem}
        retries: 3
        """;
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SpecReader.read(text, "sign.yaml", dir));
    List<String> lines = List.of(e.getMessage().split("\n"));
    List<String> expectedStarts =
        List.of(
            "sign.yaml line 14: retries: the spec has no such key",
            "sign.yaml line 1: document size: write a size in bytes",
            "sign.yaml line 2: header Authorization: unknown filter 'rot13'",
            "sign.yaml line 4: request path: ${id} is not known here",
            "sign.yaml line 6: expect status: give an HTTP status from 100 to 599",
            "sign.yaml line 7: capture id: give a JSON Pointer (RFC 6901)",
            "sign.yaml line 8: request: write METHOD PATH",
            "sign.yaml line 9: sign: give as:",
            "sign.yaml line 11: signature value: ${sig} is not known here",
            "sign.yaml line 11: alg SHA256withNOTHING: no such signature algorithm",
            "sign.yaml line 11: key " + dir.resolve("missing.pem") + ": no such readable file",
            "sign.yaml line 12: pades: ${sig} is not known here",
            // xades: takes trust: now (the certificate its KeyInfo carries), so a missing bundle is
            // the problem named
            "sign.yaml line 13: trust " + dir.resolve("missing.pem") + ": no such readable file");
    assertEquals(expectedStarts.size(), lines.size(), e.getMessage());
    for (int i = 0; i < lines.size(); i++)
      assertTrue(
          lines.get(i).startsWith(expectedStarts.get(i)),
          "problem " + i + ": " + lines.get(i) + "\nexpected to start " + expectedStarts.get(i));
  }

  @Test
  void read_headersTheClientWritesItself_refusedWithTheirLines() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                SpecReader.read(
                    "headers: {Host: api.example}\nsteps:\n  - request: GET /x\n    headers:\n      Content-Length: \"3\"\n",
                    "h.yaml",
                    dir));
    assertEquals(
        List.of(
            "h.yaml line 1: header Host: the HTTP client sets it itself (from --target, the body, keep-alive); remove it",
            "h.yaml line 5: header Content-Length: the HTTP client sets it itself (from --target, the body, keep-alive); remove it"),
        List.of(e.getMessage().split("\n")));
  }

  @Test
  void read_yamlSyntaxError_namesTheLine() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> SpecReader.read("steps:\n  - request: [POST\n", "bad.yaml", dir));
    assertTrue(e.getMessage().startsWith("bad.yaml line "), e.getMessage());
    assertTrue(e.getMessage().contains("not valid YAML"), e.getMessage());
  }

  @Test
  void read_goodSpec_keepsTextStepsAndSecretsReferenced() {
    String text =
        """
        headers: {Authorization: "Bearer ${env.SIGN_TOKEN}"}
        steps:
          - request: POST /v1/documents
            json: {content: "${document | base64}", n: 3, on: true}
            expect: {status: [200, 201]}
            capture: {id: /id, where: "header:Location"}
          - request: GET /v1/documents/${id}?w=${worker}&s=${seq}&u=${uuid}
        """;
    ApiSpec spec = SpecReader.read(text, "good.yaml", dir);
    assertEquals(text, spec.text());
    assertEquals(Set.of("SIGN_TOKEN"), spec.env());
    assertEquals(4096, spec.document().sizeBytes());
    ApiSpec.Request first = (ApiSpec.Request) spec.steps().get(0);
    assertEquals(List.of(200, 201), first.statuses());
    assertEquals(Map.of("id", "/id", "where", "header:Location"), first.captures());
    assertEquals(
        "step 2 (GET /v1/documents/${id}?w=${worker}&s=${seq}&u=${uuid}, line 7)",
        spec.steps().get(1).name());
  }

  @Test
  void template_filtersInOrder_matchPublishedVectors() {
    Template.Values abc = name -> "abc".getBytes(StandardCharsets.US_ASCII);
    // FIPS 180-2's "abc" vectors
    assertEquals(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        Template.parse("${x | sha256 | hex}").renderText(abc));
    assertEquals(
        "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=" /* openssl dgst -sha256 -binary | base64 */,
        Template.parse("${x|sha256|base64}").renderText(abc));
    assertEquals(
        "ddaf35a193617aba", Template.parse("${x | sha512 | hex}").renderText(abc).substring(0, 16));
    assertEquals(
        "cb00753f45a35e8b", Template.parse("${x | sha384 | hex}").renderText(abc).substring(0, 16));
    // RFC 4648 §10 and base64url of bytes that differ between the alphabets
    Template.Values foobar = name -> "foobar".getBytes(StandardCharsets.US_ASCII);
    assertEquals("a Zm9vYmFy b", Template.parse("a ${x | base64} b").renderText(foobar));
    Template.Values high = name -> new byte[] {(byte) 0xfb, (byte) 0xff};
    assertEquals("-_8", Template.parse("${x | base64url}").renderText(high));
    assertEquals("+/8=", Template.parse("${x | base64}").renderText(high));
    assertArrayEquals(
        new byte[] {(byte) 0xfb, (byte) 0xff},
        Template.parse("${x | base64url | unbase64}").render(high));
    assertArrayEquals(
        new byte[] {(byte) 0xfb, (byte) 0xff}, Template.parse("${x | hex | unhex}").render(high));
    assertEquals("${literal}", Template.parse("$${literal}").renderText(abc));
  }

  @Test
  void template_binaryBytesAsText_refusedAskingForAFilter() {
    Template.Values high = name -> new byte[] {(byte) 0xfb, (byte) 0xff};
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Template.parse("${document}").renderText(high));
    assertTrue(e.getMessage().contains("add | base64 or | hex"), e.getMessage());
  }

  @Test
  void blank_secretAndItsEncodings_replacedWherever() throws Exception {
    ApiSpec spec =
        SpecReader.read(
            "headers: {X-Key: \"${env.K}\"}\nsteps:\n  - request: GET /x\n", "s.yaml", dir);
    SpecSecrets secrets = SpecSecrets.read(spec, Map.of("K", "s3cr3t-value"));
    assertEquals(
        "a *** b *** c ***",
        secrets.blank("a s3cr3t-value b czNjcjN0LXZhbHVl c 73336372337" + "42d76616c7565"));
    IllegalArgumentException missing =
        assertThrows(IllegalArgumentException.class, () -> SpecSecrets.read(spec, Map.of()));
    assertTrue(missing.getMessage().contains("the environment has no K"), missing.getMessage());
  }
}
