package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The operation log a fake entry with {@code operationLog: true} keeps in its state file: who
 * (which process) began and ended each create and delete, and when. Public for the KVM tests'
 * fleet on the fake.
 */
public final class FakeOperationLog {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One operation.
     *
     * @param ended   when it ended; null while it runs, or when its process died during it
     * @param outcome {@code ok}, the error kind, or null with {@code ended}
     */
    public record Operation(long seq, String entry, String operation, String instance, long pid, Instant started,
                            Instant ended, String outcome) {
        /** When it ended, or when its process was killed (from {@code killed}), or now. */
        Instant endOr(Map<Long, Instant> killed) {
            return ended != null ? ended : killed.getOrDefault(pid, Instant.now());
        }
    }

    private FakeOperationLog() {
    }

    /** Reads the log of a state file; empty when the file or its log does not exist yet. */
    public static List<Operation> read(Path stateFile) {
        if (!Files.exists(stateFile)) {
            return List.of();
        }
        try {
            JsonNode root = JSON.readTree(Files.readString(stateFile));
            List<Operation> operations = new ArrayList<>();
            for (JsonNode record : root.path("operations")) {
                operations.add(new Operation(record.path("seq").asLong(), record.path("entry").asText(),
                        record.path("operation").asText(), record.path("instance").asText(), record.path("pid").asLong(),
                        Instant.parse(record.path("started").asText()), record.path("ended").isNull() ? null
                        : Instant.parse(record.path("ended").asText()), record.path("outcome").isNull() ? null
                        : record.path("outcome").asText()));
            }
            return operations;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Asserts that no two processes' operations on one entry overlap in time: each leader acted
     * alone. An operation of a killed process that never ended counts until its kill.
     *
     * @param killed the processes killed, with when
     */
    public static void assertNoOverlapBetweenProcesses(List<Operation> operations, Map<Long, Instant> killed) {
        List<Operation> sorted = operations.stream().sorted(Comparator.comparing(Operation::started)).toList();
        for (int i = 0; i < sorted.size(); i++) {
            for (int j = i + 1; j < sorted.size(); j++) {
                Operation earlier = sorted.get(i);
                Operation later = sorted.get(j);
                if (earlier.pid() != later.pid() && earlier.entry().equals(later.entry())) {
                    assertThat(later.started()).as("%s began while %s of another process ran", later, earlier)
                            .isAfterOrEqualTo(earlier.endOr(killed));
                }
            }
        }
    }

    /** The names of the instances in the state file now, one per instance (a name made twice shows twice). */
    public static List<String> instanceNames(Path stateFile) {
        try {
            List<String> names = new ArrayList<>();
            JSON.readTree(Files.readString(stateFile)).path("instances")
                    .forEach(instance -> names.add(instance.path("name").asText()));
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The successful creates of each instance, counted. */
    public static Map<String, Long> successfulCreates(List<Operation> operations) {
        return operations.stream().filter(operation -> operation.operation().equals("create")
                        && "ok".equals(operation.outcome()))
                .collect(java.util.stream.Collectors.groupingBy(Operation::instance,
                        java.util.stream.Collectors.counting()));
    }
}
