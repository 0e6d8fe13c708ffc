package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.output.QualifiedId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The instance IDs that shell completion offers: a small file in the state directory that
 * {@code list} rewrites for the entries it listed, {@code create} adds to and {@code delete} removes
 * from, so completing an ID reads a local file and never asks a hypervisor while a person types.
 * It is a hint, not a record: a failure to read or write it is ignored, and an ID made or removed by
 * another machine shows up (or goes) at the next {@code list}.
 */
final class IdCache {
    /** The file's name in the state directory. */
    static final String FILE_NAME = "completion-ids";
    /** More IDs than anyone completes by hand; a bound keeps a runaway file from slowing the shell. */
    static final int MAXIMUM_IDS = 10_000;

    private final Path stateDirectory;

    /** A cache in {@code stateDirectory}. */
    IdCache(Path stateDirectory) {
        this.stateDirectory = stateDirectory;
    }

    /** The cached IDs, in the file's order; empty when there is no file or it cannot be read. */
    List<String> ids() {
        return read();
    }

    /**
     * Replaces the IDs of {@code entries} with {@code ids}, as a whole listing of them found them.
     * Writes only where the state directory exists: {@code list} reads and must create nothing.
     */
    void replace(Collection<String> entries, Collection<QualifiedId> ids) {
        if (!Files.isDirectory(stateDirectory)) {
            return;
        }
        Set<String> lines = new LinkedHashSet<>();
        for (String line : read()) {
            int slash = line.indexOf('/');
            if (slash > 0 && !entries.contains(line.substring(0, slash))) {
                lines.add(line);
            }
        }
        ids.forEach(id -> lines.add(id.toString()));
        write(lines);
    }

    /** Adds an ID that create printed; creates the state directory if needed, as create may. */
    void add(QualifiedId id) {
        Set<String> lines = new LinkedHashSet<>(read());
        if (lines.add(id.toString())) {
            try {
                Files.createDirectories(stateDirectory);
            } catch (IOException | RuntimeException ignored) {
                return;   // the cache is a convenience; create has done its work
            }
            write(lines);
        }
    }

    /** Removes an ID that is gone. */
    void remove(QualifiedId id) {
        Set<String> lines = new LinkedHashSet<>(read());
        if (lines.remove(id.toString())) {
            write(lines);
        }
    }

    private List<String> read() {
        try {
            return Files.readAllLines(stateDirectory.resolve(FILE_NAME), StandardCharsets.UTF_8).stream()
                    .map(String::strip).filter(line -> !line.isEmpty()).limit(MAXIMUM_IDS).toList();
        } catch (NoSuchFileException missing) {
            return List.of();
        } catch (IOException | RuntimeException unreadable) {
            return List.of();
        }
    }

    /** Writes a temporary file and moves it in place, so a reader never sees half a file. */
    private void write(Set<String> lines) {
        Path temporary = null;
        try {
            temporary = Files.createTempFile(stateDirectory, FILE_NAME + ".", ".tmp");
            Files.write(temporary, lines.stream().limit(MAXIMUM_IDS).toList(), StandardCharsets.UTF_8);
            try {
                Files.move(temporary, stateDirectory.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException notAtomic) {
                Files.move(temporary, stateDirectory.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException ignored) {
            // A read-only state directory only costs completion its IDs.
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException alsoIgnored) {
                    // nothing more to do
                }
            }
        }
    }
}
