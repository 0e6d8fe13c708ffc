package dev.egressproxies.fake.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Operation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bound of the operation log: a full log drops its oldest record for each new one. */
class FileOperationLogTest {
    private static final Instant EARLIER = Instant.parse("2030-01-01T00:00:00Z");
    private static final StoreCall CALL = new StoreCall(Operation.CREATE, "zone-a/new",
            Deadline.after(Duration.ofSeconds(10)));

    @TempDir
    Path directory;

    private final StateFileCodec codec = new StateFileCodec();

    @Test
    void aFullLogKeepsItsLastTenThousandRecords() throws IOException {
        Path stateFile = directory.resolve("state.json");
        write(stateFile, endedRecords(1, FileOperationLog.CAPACITY));

        String result = FileInstanceStore.open("lab", stateFile).operationLog(Clock.systemUTC())
                .record(CALL, () -> "done");

        assertThat(result).isEqualTo("done");
        List<OperationRecord> kept = read(stateFile);
        assertThat(FileOperationLog.CAPACITY).isEqualTo(10_000);
        assertThat(kept).hasSize(FileOperationLog.CAPACITY);
        assertThat(kept.get(0).seq()).isEqualTo(2);
        assertThat(kept.get(kept.size() - 1)).satisfies(newest -> {
            assertThat(newest.seq()).isEqualTo(FileOperationLog.CAPACITY + 1);
            assertThat(newest.instance()).isEqualTo("zone-a/new");
            assertThat(newest.process()).isEqualTo(ProcessIdentity.CURRENT);
            assertThat(newest.outcome()).isEqualTo(OperationRecord.OK);
        });
    }

    @Test
    void anOperationWhoseRecordWasDroppedWhileItRanEndsUnrecorded() throws IOException {
        Path stateFile = directory.resolve("state.json");
        List<OperationRecord> later = endedRecords(2, FileOperationLog.CAPACITY + 1);

        FileInstanceStore.open("lab", stateFile).operationLog(Clock.systemUTC()).record(CALL, () -> {
            // As if 10,000 operations of other processes began and ended meanwhile.
            write(stateFile, later);
            return null;
        });

        assertThat(read(stateFile)).isEqualTo(later);
    }

    /** Ended records numbered {@code first} to {@code last}, of another process. */
    private static List<OperationRecord> endedRecords(long first, long last) {
        List<OperationRecord> records = new ArrayList<>();
        for (long seq = first; seq <= last; seq++) {
            records.add(new OperationRecord(seq, "lab", "create", "zone-a/old-" + seq,
                    new ProcessIdentity(1, EARLIER, "elsewhere"), EARLIER, EARLIER, OperationRecord.OK));
        }
        return records;
    }

    private void write(Path stateFile, List<OperationRecord> operations) {
        try {
            Files.write(stateFile, codec.encode(new StateDocument(Map.of(), operations)));
        } catch (IOException failure) {
            throw new UncheckedIOException(failure);
        }
    }

    private List<OperationRecord> read(Path stateFile) throws IOException {
        try {
            return codec.decode(Files.readAllBytes(stateFile)).operations();
        } catch (StateFormatException corrupt) {
            throw new AssertionError("the log is corrupt", corrupt);
        }
    }
}
