package dev.egressproxies.runtime.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table with a header row and columns padded to their widest cell, as
 * {@code kubectl get} prints it.
 */
public final class Table {
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    /** Starts a table with these column names. */
    public Table(String... header) {
        this.header = List.of(header);
    }

    /** Adds a row; a null cell prints as {@code -}. */
    public Table row(Object... cells) {
        if (cells.length != header.size()) {
            throw new IllegalArgumentException("row has " + cells.length + " cells, header has " + header.size());
        }
        List<String> row = new ArrayList<>(cells.length);
        for (Object cell : cells) {
            String text = cell == null ? "" : cell.toString();
            row.add(text.isEmpty() ? "-" : text);
        }
        rows.add(row);
        return this;
    }

    /** Prints the header and rows. */
    public void print(PrintWriter out) {
        int[] widths = new int[header.size()];
        for (int column = 0; column < widths.length; column++) {
            widths[column] = header.get(column).length();
            for (List<String> row : rows) {
                widths[column] = Math.max(widths[column], row.get(column).length());
            }
        }
        printRow(out, header, widths);
        for (List<String> row : rows) {
            printRow(out, row, widths);
        }
        out.flush();
    }

    private static void printRow(PrintWriter out, List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int column = 0; column < cells.size(); column++) {
            String cell = cells.get(column);
            line.append(cell);
            if (column < cells.size() - 1) {
                line.append(" ".repeat(widths[column] - cell.length() + 3));
            }
        }
        out.println(line);
    }
}
