package dev.egressproxies.registry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The problems found while reading and binding configured entries, collected so one error can
 * report all of them instead of making the operator fix them one run at a time. Problems are
 * listed in configuration order, whichever check found them.
 */
final class ProblemList {
    private final List<Problem> problems = new ArrayList<>();

    /** One problem and the index of the entry it belongs to, which orders the list. */
    private record Problem(int entryIndex, String text) {
    }

    /** Adds a problem of an entry that cannot be named, for example one without a name. */
    void add(int entryIndex, String path, String detail) {
        problems.add(new Problem(entryIndex, path + ": " + detail));
    }

    /** Adds a problem of a named entry whose type may be unknown. */
    void add(int entryIndex, String entryName, String type, String path, String detail) {
        problems.add(new Problem(entryIndex, describeEntry(entryName, type) + ": " + path + ": " + detail));
    }

    /** Adds a problem of an entry whose name and type are known. */
    void add(ConfiguredEntry entry, String path, String detail) {
        add(entry.index(), entry.name(), entry.plugin().type(), path, detail);
    }

    /** How messages name an entry: {@code entry 'kvm-a' (type kvm)}. */
    static String describeEntry(String entryName, String type) {
        return "entry '" + entryName + "' (type " + type + ")";
    }

    /** The problems so far, in configuration order (a stable sort keeps each entry's own order). */
    List<String> asList() {
        return problems.stream()
                .sorted(Comparator.comparingInt(Problem::entryIndex))
                .map(Problem::text)
                .toList();
    }

    /** Throws a {@link ConfigurationException} listing every problem, when there is any. */
    void throwIfAny() {
        if (!problems.isEmpty()) {
            throw new ConfigurationException(asList());
        }
    }

    /** Formats a headline and its problems as one message, one problem per line. */
    static String format(String headline, List<String> problems) {
        StringBuilder message = new StringBuilder(headline);
        message.append(problems.size() == 1 ? " (1 problem):" : " (" + problems.size() + " problems):");
        for (String problem : problems) {
            message.append(System.lineSeparator()).append("  - ").append(problem);
        }
        return message.toString();
    }
}
