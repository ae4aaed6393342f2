package io.pkibench.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A table for the console, at most {@link #COLUMNS} wide. A table that fits is printed as one line
 * per row, columns aligned. A wider one wraps by row: each row's first columns (as many as fit, the
 * key column always first) on its line, the columns past the width in continuation lines marked
 * {@value #CONTINUED} under it, the header wrapped the same way, so every sub-column still lines up
 * down the table.
 *
 * <p>Why continuation lines rather than two column groups each repeating the key column: a level's
 * (or a step's) figures stay together in one block, read without matching a key across two tables
 * printed apart, and reading down a column works in either layout. A cell wider than the whole line
 * (a workload's label with all its parameters) is broken at its spaces onto lines of its own.
 */
public final class ConsoleTable {
  /** The widest a console table's line may be. */
  public static final int COLUMNS = 120;

  /**
   * What starts a row's continuation lines, after the table's indent: a mark, so that neither a
   * reader nor a script takes one for a row of its own (the cells are right-aligned, so indentation
   * alone cannot tell them apart).
   */
  public static final String CONTINUED = "↳";

  static final String CONTINUATION = "  " + CONTINUED + " ";

  private final String indent;
  private final String gap;
  private final Set<Integer> leftAligned;
  private final int columns;

  /**
   * A table whose lines start with {@code indent}, its cells {@code gap} apart, right-aligned but
   * for the {@code leftAligned} column indexes, at most {@code columns} wide.
   */
  public ConsoleTable(String indent, String gap, Set<Integer> leftAligned, int columns) {
    this.indent = indent;
    this.gap = gap;
    this.leftAligned = Set.copyOf(leftAligned);
    this.columns = columns;
  }

  /** The run and study tables' layout: two spaces in, one between cells, all right-aligned. */
  public static ConsoleTable rightAligned(String indent) {
    return new ConsoleTable(indent, " ", Set.of(), COLUMNS);
  }

  /** {@code rows} (the header first) as lines, each ending in a newline. */
  public String render(List<String[]> rows) {
    if (rows.isEmpty()) return "";
    int n = rows.get(0).length;
    int[] widths = new int[n];
    for (String[] r : rows)
      for (int i = 0; i < r.length; i++) widths[i] = Math.max(widths[i], r[i].length());
    List<int[]> groups = groups(widths);
    StringBuilder out = new StringBuilder();
    for (String[] r : rows) {
      for (int g = 0; g < groups.size(); g++) {
        String prefix = g == 0 ? indent : indent + CONTINUATION;
        int[] group = groups.get(g);
        int room = columns - prefix.length();
        if (group[1] - group[0] == 1 && widths[group[0]] > room) {
          for (String piece : broken(r[group[0]], room))
            out.append(prefix).append(piece).append('\n');
          continue;
        }
        out.append(prefix);
        for (int i = group[0]; i < group[1]; i++) {
          if (i > group[0]) out.append(gap);
          String pad = " ".repeat(widths[i] - r[i].length());
          out.append(leftAligned.contains(i) ? r[i] + pad : pad + r[i]);
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  /**
   * The columns of each line of a row, as [from, to) pairs: all in one when they fit, else as many
   * as fit on the first line and the rest on continuation lines.
   */
  private List<int[]> groups(int[] widths) {
    List<int[]> groups = new ArrayList<>();
    int from = 0;
    while (from < widths.length) {
      String prefix = groups.isEmpty() ? indent : indent + CONTINUATION;
      int used = prefix.length() + widths[from];
      int to = from + 1;
      while (to < widths.length && used + gap.length() + widths[to] <= columns) {
        used += gap.length() + widths[to];
        to++;
      }
      groups.add(new int[] {from, to});
      from = to;
    }
    return groups;
  }

  /**
   * A two-column row of a definition list ({@code lead} the term and its gap, {@code text} the
   * description), the description broken at its spaces so no line passes {@link #COLUMNS}, its
   * continuation lines starting at the column where it started.
   */
  public static String definition(String lead, String text) {
    int room = Math.max(COLUMNS - lead.length(), 40);
    List<String> pieces = broken(text, room);
    StringBuilder out = new StringBuilder(lead).append(pieces.get(0)).append('\n');
    for (String piece : pieces.subList(1, pieces.size()))
      out.append(" ".repeat(lead.length())).append(piece).append('\n');
    return out.toString();
  }

  /** {@code text} broken at its spaces into pieces at most {@code room} long (hard where none). */
  static List<String> broken(String text, int room) {
    List<String> pieces = new ArrayList<>();
    String rest = text;
    while (rest.length() > room) {
      int cut = rest.lastIndexOf(' ', room);
      if (cut <= 0) cut = room;
      pieces.add(rest.substring(0, cut).stripTrailing());
      rest = rest.substring(cut).stripLeading();
    }
    pieces.add(rest);
    return pieces;
  }
}
