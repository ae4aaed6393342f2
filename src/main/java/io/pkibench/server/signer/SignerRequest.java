package io.pkibench.server.signer;

import com.fasterxml.jackson.core.Base64Variant;
import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.server.signer.SignerServer.Refusal;
import java.io.IOException;

/**
 * A request's JSON object, with its {@code "document"} (up to 32 MB of base64) decoded straight from the request's
 * bytes as the parser meets it. Read as a tree, the document went through Jackson's text buffer, a String, and the
 * String's bytes again before Base64 decoded it: 9% of the service's CPU per 137 KB CAdES signature. The other fields
 * are small and stay a tree. Every refusal is the one the tree reading gave: not an object, malformed, too deep,
 * something after the object (invalid_json); a document that is not base64 (bad_base64).
 *
 * @param fields   every field but a textual {@code document}
 * @param document the decoded {@code document}, or null when there is none (or it is not a string)
 */
record SignerRequest(ObjectNode fields, byte[] document) {
  static final String DOCUMENT = "document";
  /** Padded or not, as java.util.Base64's basic decoder took it. */
  private static final Base64Variant BASE64 = Base64Variants.MIME_NO_LINEFEEDS.withReadPadding(Base64Variant.PaddingReadBehaviour.PADDING_ALLOWED);

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
    try {
      return parser.getBinaryValue(BASE64);
    } catch (JsonEOFException e) {
      throw e; // the body ends inside the string: malformed JSON, not bad base64
    } catch (JsonProcessingException e) {
      String why = e.getOriginalMessage() == null ? "" : e.getOriginalMessage().replaceFirst("^.*?\\): ", "");
      throw new Refusal(400, "bad_base64", "\"" + DOCUMENT + "\" is not base64: " + why);
    }
  }
}
