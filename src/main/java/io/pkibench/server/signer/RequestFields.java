package io.pkibench.server.signer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.text.OutsideText;
import java.io.ByteArrayInputStream;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * What the signing service reads from a request body (the document, the certificate chain, a base64
 * field) and the words it refuses a wrong one with: a client learns what is wrong and where, never
 * a stack trace or the name of one of our classes.
 */
final class RequestFields {
  private RequestFields() {}

  /** The request's document, decoded as it was parsed. */
  static byte[] document(SignerRequest request) throws Refusal {
    if (request.document() == null)
      throw new Refusal(
          400, "missing_field", "\"" + SignerRequest.DOCUMENT + "\" (base64) is required");
    return request.document();
  }

  /**
   * Jackson's words for what is wrong, without the parts that name its classes and settings ("bound
   * as `com.fasterxml…JsonNode`", "from `StreamReadConstraints.getMaxNestingDepth()`"): the client
   * learns what is wrong and where, not how we parse.
   */
  static String jsonProblem(JsonProcessingException e) {
    String text = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    if (text.startsWith("Trailing token")) text = "something follows the JSON object";
    text =
        text.replaceAll("\\s*\\([^)]*`.*$", "")
            .replaceAll("`[^`]*`", "")
            .replaceAll("[\\s:]+$", "");
    var where = e.getLocation();
    return (text.isBlank() ? "cannot be parsed" : text)
        + (where != null && where.getLineNr() > 0
            ? " (line " + where.getLineNr() + ", column " + where.getColumnNr() + ")"
            : "");
  }

  /** {@code application/json}, in any case, with or without parameters (charset=utf-8). */
  static boolean isJson(String contentType) {
    if (contentType == null) return false;
    int semicolon = contentType.indexOf(';');
    String media = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).strip();
    return media.equalsIgnoreCase("application/json");
  }

  /** A client's text in a reply: short, printable. */
  static String abbreviate(String text) {
    return OutsideText.forTerminal(text, 80);
  }

  static byte[] base64(JsonNode body, String field) throws Refusal {
    JsonNode value = body.get(field);
    if (value == null || !value.isTextual())
      throw new Refusal(400, "missing_field", "\"" + field + "\" (base64) is required");
    try {
      return Base64.getDecoder().decode(value.asText());
    } catch (IllegalArgumentException e) {
      throw new Refusal(400, "bad_base64", "\"" + field + "\" is not base64: " + e.getMessage());
    }
  }

  static String text(JsonNode body, String field, String fallback) {
    JsonNode value = body.get(field);
    return value == null || !value.isTextual() ? fallback : value.asText();
  }

  static List<X509Certificate> certificates(JsonNode body) throws Refusal {
    JsonNode list = body.get("certificates");
    if (list == null || !list.isArray() || list.isEmpty()) {
      throw new Refusal(
          400, "missing_field", "\"certificates\" (base64 DER, signer first) is required");
    }
    List<X509Certificate> chain = new ArrayList<>();
    try {
      CertificateFactory x509 = CertificateFactory.getInstance("X.509");
      for (JsonNode c : list)
        chain.add(
            (X509Certificate)
                x509.generateCertificate(
                    new ByteArrayInputStream(Base64.getDecoder().decode(c.asText()))));
    } catch (Exception e) {
      throw new Refusal(
          400, "bad_certificate", "a certificate is not base64 DER X.509: " + message(e));
    }
    return chain;
  }

  /**
   * What went wrong in words: the message without the Java exception class names libraries prefix
   * to it.
   */
  static String message(Throwable e) {
    String text = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    // A native provider's own error string (error:06000080:…:OPENSSL_internal:…) says nothing to a
    // client.
    if (text.matches("(?s).*\\berror:[0-9A-Fa-f]{8}:.*"))
      return "the signature could not be checked with the certificate's key";
    return text.replaceAll("\\b(?:[a-z]+\\.)+[A-Z]\\w*(?:Exception|Error): ", "");
  }
}
