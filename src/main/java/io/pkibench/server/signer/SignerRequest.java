package io.pkibench.server.signer;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.server.signer.SignerServer.Refusal;
import java.io.IOException;
import java.util.Base64;

/**
 * A request's JSON object read as a stream, its {@code "document"} (up to 32 MB of base64) decoded by the JDK's
 * Base64 as the parser meets it and not kept as a tree node; the other fields are small and stay a tree. Jackson's
 * own base64 decoding (straight from the request's bytes, no String) was tried and measured slower: it is a scalar
 * loop, while the JDK's decoder is an AVX-512 intrinsic on the machines this is sized on. Every refusal is the one the
 * tree reading gave: not an object, malformed, too deep, something after the object (invalid_json); a document that
 * is not base64 (bad_base64, with java.util.Base64's own words).
 *
 * @param fields   every field but a textual {@code document}
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
    try (JsonParser parser = json.createParser(raw)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) throw new Refusal(400, "invalid_json", "the body must be a JSON object");
      for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals(DOCUMENT) && value == JsonToken.VALUE_STRING) {
          document = decode(parser);
          fields.remove(DOCUMENT); // a repeated field: the last one counts, as in the tree
        } else {
          if (name.equals(DOCUMENT)) document = null;
          JsonNode node = parser.readValueAsTree();
          fields.set(name, node);
        }
      }
      // the loop ends on the object's end: anything else has thrown
      if (parser.nextToken() != null) throw new Refusal(400, "invalid_json", "malformed JSON: something follows the JSON object");
    } catch (JsonProcessingException e) {
      throw new Refusal(400, "invalid_json", "malformed JSON: " + SignerServer.jsonProblem(e));
    } catch (IOException e) {
      throw new Refusal(400, "invalid_json", "malformed JSON: cannot be parsed");
    }
    return new SignerRequest(fields, document);
  }

  private static byte[] decode(JsonParser parser) throws Refusal, IOException {
    String text = parser.getText(); // a body that ends inside the string throws here: malformed JSON, not bad base64
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new Refusal(400, "bad_base64", "\"" + DOCUMENT + "\" is not base64: " + e.getMessage());
    }
  }
}
