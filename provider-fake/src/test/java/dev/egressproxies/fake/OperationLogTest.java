package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.conformance.TestProviderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operation log of an entry with {@code operationLog}, read from the state file as tests in
 * other modules read it: as the JSON that {@link FakeConfig} documents.
 */
class OperationLogTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path directory;

    private Path stateFile;

    private FakeConfig logged() {
        stateFile = directory.resolve("state.json");
        return FakeConfig.defaults().withStateFile(stateFile).withOperationLog(true);
    }

    /** A provider of {@code config} on the wall clock, as the platform builds it. */
    private FakeProvider onWallClock(String entry, FakeConfig config) {
        return new FakeProviderFactory().create(entry, config, new TestProviderContext(directory));
    }

    @Test
    void createsAndDeletesAreRecordedWithWhoMadeThemWhenAndTheirOutcome() throws IOException {
        ManualClock clock = new ManualClock(START);
        FakeProvider provider = TestProviders.build(logged(), clock, directory);

        String id = provider.create(request("proxy-1"), deadline());
        clock.advance(Duration.ofSeconds(1));
        provider.get(id, deadline());
        provider.listManaged(deadline());
        provider.stop(id);
        provider.create(request("proxy-1"), deadline());
        clock.advance(Duration.ofSeconds(1));
        provider.delete(id, deadline());

        JsonNode state = JSON.readTree(stateFile.toFile());
        assertThat(state.get("version").intValue()).isEqualTo(4);
        List<JsonNode> operations = operations();
        assertThat(operations).extracting(record -> record.get("seq").longValue()).containsExactly(1L, 2L, 3L);
        assertThat(operations).extracting(record -> record.get("operation").asText())
                .as("get, listManaged and the stop hook change nothing through the entry")
                .containsExactly("create", "create", "delete");
        JsonNode first = operations.get(0);
        assertThat(fieldNames(first)).containsExactly("seq", "entry", "operation", "instance", "pid", "processStart",
                "host", "started", "ended", "outcome");
        assertThat(first.get("entry").asText()).isEqualTo(TestProviders.ENTRY);
        assertThat(first.get("instance").asText()).isEqualTo(id);
        assertThat(first.get("pid").longValue()).isEqualTo(ProcessHandle.current().pid());
        assertThat(Instant.parse(first.get("processStart").asText()))
                .isEqualTo(ProcessHandle.current().info().startInstant().orElseThrow());
        assertThat(first.get("host").asText()).isNotBlank();
        assertThat(first.get("started").asText()).isEqualTo(START.toString());
        assertThat(first.get("ended").asText()).isEqualTo(START.toString());
        assertThat(first.get("outcome").asText()).isEqualTo("ok");
        assertThat(operations.get(2).get("started").asText()).isEqualTo(START.plusSeconds(2).toString());
        assertThat(operations).allSatisfy(record -> assertThat(record.get("outcome").asText()).isEqualTo("ok"));
    }

    @Test
    void failingOperationsEndWithTheirErrorKind() throws IOException {
        FakeProvider provider = onWallClock(TestProviders.ENTRY,
                logged().withFault(Operation.CREATE, FaultConfig.failing(ErrorKind.QUOTA_EXCEEDED)));
        provider.addUnmanaged("zone-a", "by-hand");

        providerError(() -> provider.create(request("proxy-1"), deadline()), ErrorKind.QUOTA_EXCEEDED,
                Operation.CREATE, "zone-a/proxy-1");
        providerError(() -> provider.delete("zone-a/by-hand", deadline()), ErrorKind.PERMANENT, Operation.DELETE,
                "zone-a/by-hand");

        List<JsonNode> operations = operations();
        assertThat(operations).extracting(record -> record.get("outcome").asText())
                .containsExactly("QUOTA_EXCEEDED", "PERMANENT");
        assertThat(operations).allSatisfy(record -> assertThat(ended(record)).isAfterOrEqualTo(started(record)));
    }

    @Test
    void callsRefusedBeforeTheyBeginAreNotRecorded() {
        FakeProvider provider = onWallClock(TestProviders.ENTRY, logged());

        providerError(() -> provider.delete("no-zone", deadline()), ErrorKind.PERMANENT, Operation.DELETE, "no-zone");
        providerError(() -> provider.create(request("proxy-1"), Deadline.after(Duration.ZERO)), ErrorKind.TRANSIENT,
                Operation.CREATE, "zone-a/proxy-1");

        assertThat(stateFile).doesNotExist();
    }

    @Test
    void operationInItsLatencyShowsAnOpenRecordThatEndsWhenItDoes() throws Exception {
        FakeProvider slow = onWallClock(TestProviders.ENTRY,
                logged().withFault(Operation.CREATE, FaultConfig.slow(Duration.ofSeconds(2))));
        FakeProvider observer = onWallClock(TestProviders.ENTRY, FakeConfig.defaults().withStateFile(stateFile));

        CompletableFuture<String> created = CompletableFuture.supplyAsync(() -> slow.create(request("proxy-1"),
                deadline()));
        JsonNode open = awaitRecord(record -> record.get("instance").asText().equals("zone-a/proxy-1"));

        assertThat(open.get("ended").isNull()).as("ended of %s", open).isTrue();
        assertThat(open.get("outcome").isNull()).as("outcome of %s", open).isTrue();
        assertThat(observer.listManaged(deadline())).as("created only after the latency").isEmpty();
        assertThat(created.get(10, TimeUnit.SECONDS)).isEqualTo("zone-a/proxy-1");
        JsonNode closed = operations().get(0);
        assertThat(closed.get("outcome").asText()).isEqualTo("ok");
        assertThat(Duration.between(started(closed), ended(closed))).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void hungOperationEndsWhenItsDeadlinePassesAndAnInterruptedOneWhenInterrupted() throws Exception {
        FakeProvider hung = onWallClock(TestProviders.ENTRY,
                logged().withFault(Operation.DELETE, FaultConfig.hanging()));
        providerError(() -> hung.delete("zone-a/proxy-1", Deadline.after(Duration.ofMillis(200))), ErrorKind.TRANSIENT,
                Operation.DELETE, "zone-a/proxy-1");

        CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                hung.delete("zone-a/proxy-2", Deadline.none());
                flagKept.completeExceptionally(new AssertionError("the hung delete returned normally"));
            } catch (ProviderException expected) {
                flagKept.complete(Thread.currentThread().isInterrupted());
            }
        });
        caller.start();
        awaitRecord(record -> record.get("instance").asText().equals("zone-a/proxy-2"));
        caller.interrupt();

        assertThat(flagKept.get(5, TimeUnit.SECONDS)).as("interrupt flag kept for the caller").isTrue();
        assertThat(operations()).extracting(record -> record.get("instance").asText() + " "
                + record.get("outcome").asText())
                .containsExactly("zone-a/proxy-1 TRANSIENT", "zone-a/proxy-2 TRANSIENT");
    }

    @Test
    void twoProvidersOnOneFileInterleaveTheirRecordsInTheOrderTheyHappened() throws Exception {
        // Two replicas of one entry, as two processes sharing the file would be.
        FakeProvider slowReplica = onWallClock(TestProviders.ENTRY,
                logged().withFault(Operation.CREATE, FaultConfig.slow(Duration.ofMillis(800))));
        FakeProvider quickReplica = onWallClock(TestProviders.ENTRY, logged());

        CompletableFuture<String> slowCreate = CompletableFuture.supplyAsync(() ->
                slowReplica.create(request("slow"), deadline()));
        awaitRecord(record -> record.get("instance").asText().equals("zone-a/slow"));
        quickReplica.create(request("quick"), deadline());
        quickReplica.delete("zone-a/quick", deadline());
        slowCreate.get(10, TimeUnit.SECONDS);

        List<JsonNode> operations = operations();
        assertThat(operations).extracting(record -> record.get("seq").longValue() + " "
                + record.get("operation").asText() + " " + record.get("instance").asText())
                .containsExactly("1 create zone-a/slow", "2 create zone-a/quick", "3 delete zone-a/quick");
        JsonNode slow = operations.get(0);
        JsonNode quickCreate = operations.get(1);
        JsonNode quickDelete = operations.get(2);
        assertThat(started(quickCreate)).isAfterOrEqualTo(started(slow));
        assertThat(ended(quickCreate)).isBeforeOrEqualTo(started(quickDelete));
        assertThat(ended(slow)).as("the slow create overlaps both quick operations")
                .isAfterOrEqualTo(ended(quickDelete));
        assertThat(operations).allSatisfy(record -> assertThat(record.get("outcome").asText()).isEqualTo("ok"));
    }

    @Test
    void anEntryWithoutTheLogKeepsTheRecordsOfOthersInItsFileAndAddsNone() throws IOException {
        FakeProvider logging = onWallClock("logging", logged());
        FakeProvider quiet = onWallClock("quiet", FakeConfig.defaults().withStateFile(stateFile));

        logging.create(request("proxy-1"), deadline());
        quiet.create(request("proxy-2"), deadline());
        quiet.delete("zone-a/proxy-2", deadline());

        assertThat(operations()).singleElement().satisfies(record -> {
            assertThat(record.get("entry").asText()).isEqualTo("logging");
            assertThat(record.get("outcome").asText()).isEqualTo("ok");
        });
        assertThat(JSON.readTree(stateFile.toFile()).get("instances")).hasSize(1);
    }

    @Test
    void withoutTheLogTheFileStaysVersionThree() throws IOException {
        FakeProvider provider = onWallClock(TestProviders.ENTRY, FakeConfig.defaults().withStateFile(
                directory.resolve("state.json")));

        provider.create(request("proxy-1"), deadline());

        JsonNode state = JSON.readTree(directory.resolve("state.json").toFile());
        assertThat(state.get("version").intValue()).isEqualTo(3);
        assertThat(state.has("operations")).isFalse();
    }

    /** The records of the state file, oldest first; none while there is no file. */
    private List<JsonNode> operations() throws IOException {
        List<JsonNode> records = new ArrayList<>();
        if (Files.exists(stateFile)) {
            JSON.readTree(stateFile.toFile()).path("operations").forEach(records::add);
        }
        return records;
    }

    /** Polls the state file, as another process would, until a record matches. */
    private JsonNode awaitRecord(Predicate<JsonNode> wanted) throws Exception {
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - giveUpAt < 0) {
            for (JsonNode record : operations()) {
                if (wanted.test(record)) {
                    return record;
                }
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        return fail("no such record within 10 s; the log holds %s", operations());
    }

    private static List<String> fieldNames(JsonNode record) {
        List<String> names = new ArrayList<>();
        record.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static Instant started(JsonNode record) {
        return Instant.parse(record.get("started").asText());
    }

    private static Instant ended(JsonNode record) {
        assertThat(record.get("ended").isTextual()).as("ended of %s", record).isTrue();
        return Instant.parse(record.get("ended").asText());
    }
}
