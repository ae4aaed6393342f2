package io.pkibench.server.signer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * A request's JSON object read as a stream, its {@code "document"} (up to 32 MB of base64) decoded
 * by the JDK's Base64 as the parser meets it and not kept as a tree node; the other fields are
 * small and stay a tree. Jackson's own base64 decoding (straight from the request's bytes, no
 * String) was tried and measured slower: it is a scalar loop, while the JDK's decoder is an AVX-512
 * intrinsic on the machines this is sized on. Every refusal is the one the tree reading gave: not
 * an object, malformed, too deep, something after the object (invalid_json); a document that is not
 * base64 (bad_base64, with java.util.Base64's own words).
 *
 * @param fields every field but a textual {@code document}
 * @param document the decoded {@code document}, or null when there is none (or it is not a string)
 */
record SignerRequest(ObjectNode fields, byte[] document) {
  static final String DOCUMENT = "document";

  static SignerRequest empty(ObjectMapper json) {
    return new SignerRequest(json.createObjectNode(), null);
  }

  static SignerRequest read(ObjectMapper json, byte[] raw) throws Refusal {
    ObjectNode fields = json.createObjectNode();
    byte[] document = null;
    String latin1 =
        new String(
            raw,
            StandardCharsets.ISO_8859_1); // the body searched as text: String.indexOf is vectorised
    try (JsonParser parser = json.createParser(raw)) {
      if (parser.nextToken() != JsonToken.START_OBJECT)
        throw new Refusal(400, "invalid_json", "the body must be a JSON object");
      for (JsonToken token = parser.nextToken();
          token == JsonToken.FIELD_NAME;
          token = parser.nextToken()) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals(DOCUMENT) && value == JsonToken.VALUE_STRING) {
          document = decode(parser, raw, latin1);
          fields.remove(DOCUMENT); // a repeated field: the last one counts, as in the tree
        } else {
          if (name.equals(DOCUMENT)) document = null;
          JsonNode node = parser.readValueAsTree();
          fields.set(name, node);
        }
      }
      // the loop ends on the object's end: anything else has thrown
      if (parser.nextToken() != null)
        throw new Refusal(400, "invalid_json", "malformed JSON: something follows the JSON object");
    } catch (JsonProcessingException e) {
      throw new Refusal(400, "invalid_json", "malformed JSON: " + RequestFields.jsonProblem(e));
    } catch (IOException e) {
      throw new Refusal(400, "invalid_json", "malformed JSON: cannot be parsed");
    }
    return new SignerRequest(fields, document);
  }

  /**
   * The document's base64 straight from the request's bytes when its JSON string holds no escape
   * (what every client sends): Jackson's reading of a 180 KB string into a String, a char at a
   * time, was 12% of the service's CPU per CAdES signature. Anything else (an escape, a byte base64
   * does not take, a string that does not end) goes the String's way, so every answer and refusal
   * stays what it was.
   */
  private static byte[] decode(JsonParser parser, byte[] raw, String latin1)
      throws Refusal, IOException {
    long quote = parser.currentTokenLocation().getByteOffset();
    if (quote >= 0 && quote < raw.length && raw[(int) quote] == '"') {
      int start = (int) quote + 1;
      int end = latin1.indexOf('"', start);
      // both searches end at the string's end: a body of many small "document" fields costs its
      // length once, not per field
      if (end >= 0 && latin1.indexOf('\\', start, end) < 0) {
        try {
          ByteBuffer decoded = Base64.getDecoder().decode(ByteBuffer.wrap(raw, start, end - start));
          return decoded.remaining() == decoded.array().length
              ? decoded.array()
              : Arrays.copyOf(decoded.array(), decoded.remaining());
        } catch (IllegalArgumentException notPlain) {
          // refused below, in the String's words
        }
      }
    }
    return decode(parser);
  }

  private static byte[] decode(JsonParser parser) throws Refusal, IOException {
    String text =
        parser.getText(); // a body that ends inside the string throws here: malformed JSON, not bad
    // base64
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new Refusal(400, "bad_base64", "\"" + DOCUMENT + "\" is not base64: " + e.getMessage());
    }
  }
}
