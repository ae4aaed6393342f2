package io.pkibench.server.signer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The signing service's request reading: the document decoded from the bytes as java.util.Base64
 * decodes it, the rest a tree.
 */
class SignerRequestTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static SignerRequest read(String body) throws Refusal {
    return SignerRequest.read(JSON, body.getBytes(StandardCharsets.UTF_8));
  }

  private static Refusal refused(String body) {
    return assertThrows(Refusal.class, () -> read(body));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4, 5, 1000, 140_000})
  void read_documentOfAnySize_sameBytesAsJavaBase64AndTheOtherFieldsAsTree(int size)
      throws Exception {
    byte[] document = new byte[size];
    new SplittableRandom(size).nextBytes(document);
    String encoded = Base64.getEncoder().encodeToString(document);
    SignerRequest request =
        read(
            "{\"certificates\":[\"AAAA\",\"BBBB\"],\"document\":\""
                + encoded
                + "\",\"packaging\":\"enveloping\"}");
    // the independent decoder: the JDK's, which the service used before
    assertArrayEquals(Base64.getDecoder().decode(encoded), request.document());
    assertEquals("enveloping", request.fields().path("packaging").asText());
    assertEquals(2, request.fields().path("certificates").size());
    assertEquals("BBBB", request.fields().path("certificates").get(1).asText());
    assertFalse(request.fields().has("document"), "the document is not kept twice");
  }

  @Test
  void read_unpaddedBase64_decodedAsJavaBase64DecodesIt() throws Exception {
    assertArrayEquals(
        "hello".getBytes(StandardCharsets.US_ASCII), read("{\"document\":\"aGVsbG8\"}").document());
    assertArrayEquals(
        Base64.getDecoder().decode("aGVsbG8"), read("{\"document\":\"aGVsbG8=\"}").document());
  }

  /**
   * The document is decoded from the request's bytes when its string holds no escape; one with
   * escapes (a JSON encoder may write "/" as "\\/"), or one whose bytes are not base64, is read
   * through the parser as before: the same bytes, the same refusals. A fast path that took the
   * escape as base64 or cut the string at it would differ here.
   */
  @Test
  void read_documentWithEscapes_decodedAsThePlainOne_andAStringThatNeverEnds_isMalformed()
      throws Exception {
    byte[] document = new byte[3000];
    new SplittableRandom(7).nextBytes(document);
    String encoded = Base64.getEncoder().encodeToString(document);
    assertTrue(encoded.contains("/"), "the sample has a slash to escape");
    assertArrayEquals(document, read("{\"document\":\"" + encoded + "\"}").document());
    assertArrayEquals(
        document, read("{\"document\":\"" + encoded.replace("/", "\\/") + "\"}").document());
    assertArrayEquals(
        document, read("{\"document\":\"" + encoded.replace("A", "\\u0041") + "\"}").document());
    Refusal open = refused("{\"document\":\"" + encoded);
    assertEquals("invalid_json", open.code, open.getMessage());
    Refusal notBase64 =
        refused(
            "{\"document\":\""
                + encoded.substring(0, 100)
                + "\u00e9"
                + encoded.substring(100)
                + "\"}");
    assertEquals("bad_base64", notBase64.code);
    // the String's words: é is 0xE9 there, which Base64 prints as a signed byte in hex; its UTF-8
    // bytes would say -3d
    assertTrue(
        notBase64.getMessage().endsWith("Illegal base64 character -17"), notBase64.getMessage());
  }

  @Test
  void read_documentNotBase64_refusedBadBase64NamingTheField() {
    Refusal r = refused("{\"document\":\"@@@\",\"certificates\":[]}");
    assertEquals(400, r.status);
    assertEquals("bad_base64", r.code);
    assertTrue(r.getMessage().startsWith("\"document\" is not base64"), r.getMessage());
    assertFalse(
        r.getMessage().contains("MIME") || r.getMessage().contains("VALUE_STRING"),
        "in our words: " + r.getMessage());
  }

  @Test
  void read_malformedOrNotAnObject_refusedInvalidJson() {
    assertEquals("invalid_json", refused("{not json").code);
    assertEquals("invalid_json", refused("[1,2]").code);
    assertEquals("invalid_json", refused("[".repeat(5000)).code);
    assertEquals("invalid_json", refused("{\"document\":\"aGVsbG8=\"} trailing").code);
    assertEquals("invalid_json", refused("{\"document\":\"aGVsbG8=\"}{}").code);
    // the body ends inside the document: malformed JSON, not bad base64
    assertEquals("invalid_json", refused("{\"document\":\"aGVsbG8").code);
    Refusal after = refused("{\"document\":\"aGVsbG8=\"} 1");
    assertEquals("invalid_json", after.code);
    assertTrue(
        after.getMessage().contains("something follows the JSON object"), after.getMessage());
  }

  @Test
  void read_documentNotAString_noDocumentAndTheValueKept() throws Exception {
    SignerRequest request = read("{\"document\":42}");
    assertNull(request.document());
    assertEquals(42, request.fields().path("document").asInt());
  }

  @Test
  void read_documentTwice_theLastCounts() throws Exception {
    assertArrayEquals(
        "hello".getBytes(StandardCharsets.US_ASCII),
        read("{\"document\":\"AAAA\",\"document\":\"aGVsbG8=\"}").document());
    SignerRequest notAStringLast = read("{\"document\":\"aGVsbG8=\",\"document\":7}");
    assertNull(notAStringLast.document());
    assertEquals(7, notAStringLast.fields().path("document").asInt());
  }

  @Test
  void read_trailingWhitespace_accepted() throws Exception {
    assertArrayEquals(
        "hello".getBytes(StandardCharsets.US_ASCII),
        read("{\"document\":\"aGVsbG8=\"}\r\n").document());
  }
}
