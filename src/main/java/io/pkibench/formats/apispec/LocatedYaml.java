package io.pkibench.formats.apispec;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.pkibench.text.OutsideText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * YAML read into maps, lists and scalars that each keep the line they start on, so that every
 * problem of a spec names its line. Scalars stay text (YAML's {@code 201} and {@code "201"} alike):
 * the reader says which it wants.
 */
record LocatedYaml(Object value, int line) {

  /** A scalar's text, a map of located values, or a list of them; null for YAML's null. */
  @SuppressWarnings("unchecked")
  Map<String, LocatedYaml> map() {
    return (Map<String, LocatedYaml>) value;
  }

  @SuppressWarnings("unchecked")
  List<LocatedYaml> list() {
    return (List<LocatedYaml>) value;
  }

  boolean isMap() {
    return value instanceof Map;
  }

  boolean isList() {
    return value instanceof List;
  }

  boolean isScalar() {
    return value instanceof String || value instanceof Unquoted;
  }

  /** A scalar's text, whether YAML read it as a string or not. */
  String text() {
    return value instanceof Unquoted u ? u.text() : (String) value;
  }

  /** A number or boolean as YAML read it (not a string): JSON bodies keep it as it is. */
  record Unquoted(String text) {}

  /** The whole text parsed; throws with the line of the first syntax error or repeated key. */
  static LocatedYaml parse(String text) {
    try (JsonParser parser = new YAMLFactory().createParser(text)) {
      if (parser.nextToken() == null)
        throw new IllegalArgumentException("line 1: the file is empty");
      return value(parser);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new IllegalArgumentException(
          "line "
              + (at == null ? 1 : at.getLineNr())
              + ": not valid YAML: "
              + OutsideText.forTerminal(e.getOriginalMessage()),
          e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot be read (" + e.getMessage() + ")", e);
    }
  }

  private static LocatedYaml value(JsonParser p) throws IOException {
    int line = p.currentTokenLocation().getLineNr();
    JsonToken t = p.currentToken();
    return switch (t) {
      case START_OBJECT -> {
        Map<String, LocatedYaml> map = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          int keyLine = p.currentTokenLocation().getLineNr();
          p.nextToken();
          LocatedYaml v = value(p);
          LocatedYaml before = map.put(key, new LocatedYaml(v.value(), keyLine));
          if (before != null)
            throw new IllegalArgumentException(
                "line "
                    + keyLine
                    + ": "
                    + OutsideText.forTerminal(key)
                    + " is given twice (first on line "
                    + before.line()
                    + "); give each key once");
        }
        yield new LocatedYaml(map, line);
      }
      case START_ARRAY -> {
        List<LocatedYaml> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) list.add(value(p));
        yield new LocatedYaml(list, line);
      }
      case VALUE_NULL -> new LocatedYaml(null, line);
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE ->
          new LocatedYaml(new Unquoted(p.getText()), line);
      default -> new LocatedYaml(p.getText(), line);
    };
  }
}
