package io.pkibench.formats.apispec;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A spec's text with {@code ${name | filter | ...}} expressions in it, parsed once: rendering an
 * operation's values into it is a concatenation of bytes, never a second parse. {@code $${} writes
 * a literal {@code ${}.
 */
public final class Template {
  /** A piece of the text: literal bytes, or an expression to fill in. */
  sealed interface Part permits Literal, Expression {}

  record Literal(byte[] bytes) implements Part {}

  /** {@code name} (a variable, {@code env.NAME}, {@code file.PATH}) then its filters in order. */
  public record Expression(String name, List<Filter> filters) implements Part {}

  private final String text;
  private final List<Part> parts;

  private Template(String text, List<Part> parts) {
    this.text = text;
    this.parts = List.copyOf(parts);
  }

  /** Parses {@code text}; throws naming the first bad expression (an unclosed one, a filter). */
  public static Template parse(String text) {
    List<Part> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    int i = 0;
    while (i < text.length()) {
      if (text.startsWith("$${", i)) {
        literal.append("${");
        i += 3;
      } else if (text.startsWith("${", i)) {
        int end = text.indexOf('}', i);
        if (end < 0)
          throw new IllegalArgumentException(
              "'" + text.substring(i) + "' opens ${ without closing it with }");
        if (!literal.isEmpty()) {
          parts.add(new Literal(literal.toString().getBytes(StandardCharsets.UTF_8)));
          literal.setLength(0);
        }
        parts.add(expression(text.substring(i + 2, end)));
        i = end + 1;
      } else {
        literal.append(text.charAt(i++));
      }
    }
    if (!literal.isEmpty())
      parts.add(new Literal(literal.toString().getBytes(StandardCharsets.UTF_8)));
    return new Template(text, parts);
  }

  private static Expression expression(String inside) {
    String[] words = inside.split("\\|", -1);
    String name = words[0].strip();
    if (name.isEmpty()) throw new IllegalArgumentException("'${" + inside + "}' names no variable");
    List<Filter> filters = new ArrayList<>();
    for (int k = 1; k < words.length; k++) filters.add(Filter.parse(words[k].strip()));
    return new Expression(name, filters);
  }

  /** The template as written in the spec (what a failure names: never an operation's values). */
  public String text() {
    return text;
  }

  public List<Expression> expressions() {
    return parts.stream().filter(Expression.class::isInstance).map(Expression.class::cast).toList();
  }

  /** The bytes with every expression filled from {@code values}, filtered. */
  public byte[] render(Values values) {
    if (parts.size() == 1 && parts.get(0) instanceof Literal l) return l.bytes();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Part part : parts) {
      switch (part) {
        case Literal l -> out.writeBytes(l.bytes());
        case Expression e -> {
          byte[] value = values.value(e.name());
          for (Filter f : e.filters()) value = f.apply(value);
          out.writeBytes(value);
        }
      }
    }
    return out.toByteArray();
  }

  /** The rendering as UTF-8 text, refused when it is not text (binary bytes need a filter). */
  public String renderText(Values values) {
    byte[] bytes = render(values);
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' makes "
              + bytes.length
              + " bytes that are not text: add | base64 or | hex");
    }
  }

  /** Where a template's names are looked up while an operation runs. */
  @FunctionalInterface
  public interface Values {
    /** The bytes of {@code name}; throws naming it when it has none (yet). */
    byte[] value(String name);
  }

  @Override
  public String toString() {
    return text;
  }
}
