package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.api.ProviderException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileBackedProviderTest {
    @TempDir
    Path directory;

    private final ManualClock clock = new ManualClock(START);

    private FakeProvider provider(Path stateFile) {
        return TestProviders.build(FakeConfig.defaults().withStateFile(stateFile), clock, directory);
    }

    @Test
    void twoProvidersOnOneFileSeeEachOthersChanges() {
        Path stateFile = directory.resolve("state.json");
        FakeProvider first = provider(stateFile);
        FakeProvider second = provider(stateFile);

        String id = first.create(request("proxy-1"), deadline());
        assertThat(second.get(id, deadline()).uid()).isEqualTo("uid-proxy-1");
        assertThat(second.create(request("proxy-1"), deadline())).isEqualTo(id);

        second.stop(id);
        assertThat(first.get(id, deadline()).state()).isEqualTo(InstanceState.STOPPED);

        second.addUnmanaged("zone-a", "by-hand");
        assertThat(first.get("zone-a/by-hand", deadline()).uid()).isEmpty();
        assertThat(first.listManaged(deadline())).extracting(Instance::id).containsExactly(id);

        second.delete(id, deadline());
        providerError(() -> first.get(id, deadline()), ErrorKind.NOT_FOUND, Operation.GET, id);
    }

    @Test
    void instancesOutliveTheProviderThatCreatedThem() {
        Path stateFile = directory.resolve("state.json");
        String id = provider(stateFile).create(request("proxy-1"), deadline());

        Instance reread = provider(stateFile).get(id, deadline());

        assertThat(reread.createdAt()).isEqualTo(START);
        assertThat(reread.ip()).isEqualTo("198.51.100.1");
    }

    @Test
    void missingDirectoriesAreCreatedAndRelativePathsResolveInTheStateDirectory() {
        FakeProvider relative = provider(Path.of("fake", "nested", "state.json"));

        relative.create(request("proxy-1"), deadline());

        assertThat(directory.resolve("fake/nested/state.json")).isRegularFile();
    }

    @Test
    void theFileIsVersionedJsonAndNoTemporaryFilesRemain() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);
        provider.create(request("proxy-1"), deadline());
        provider.create(request("proxy-2"), deadline());
        provider.delete("zone-a/proxy-1", deadline());

        JsonNode state = new ObjectMapper().readTree(stateFile.toFile());

        assertThat(state.get("version").intValue()).isEqualTo(3);
        assertThat(state.get("instances")).hasSize(1);
        assertThat(state.get("instances").get(0).get("entry").asText()).isEqualTo(TestProviders.ENTRY);
        assertThat(state.get("instances").get(0).get("createdAt").asText()).isEqualTo("2030-01-01T00:00:00Z");
        try (Stream<Path> files = Files.list(directory)) {
            assertThat(files.map(file -> file.getFileName().toString()).collect(Collectors.toList()))
                    .containsExactlyInAnyOrder("state.json", "state.json.lock");
        }
    }

    @Test
    void concurrentCreatesThroughTwoProvidersOnOneFileLoseNothing() throws Exception {
        Path stateFile = directory.resolve("state.json");
        FakeProvider first = provider(stateFile);
        FakeProvider second = provider(stateFile);

        CompletableFuture<Set<String>> viaFirst = CompletableFuture.supplyAsync(() ->
                createMany(first, "first"));
        Set<String> viaSecond = createMany(second, "second");

        assertThat(viaFirst.get(60, TimeUnit.SECONDS)).hasSize(16);
        assertThat(viaSecond).hasSize(16);
        assertThat(provider(stateFile).listManaged(deadline())).hasSize(32);
    }

    @Test
    void concurrentCreatesOfOneNameOnOneFileGiveOneInstance() throws Exception {
        FakeProvider provider = provider(directory.resolve("state.json"));

        assertThat(IdempotencyTest.createConcurrently(provider, index -> "proxy-1")).containsExactly("zone-a/proxy-1");
        assertThat(provider.listManaged(deadline())).hasSize(1);
    }

    @Test
    void corruptFileFailsTheEntrysCallsNamingTheFileButNotItsBuild() throws IOException {
        Path stateFile = directory.resolve("state.json");
        Files.writeString(stateFile, "{\"version\": 1, \"instances\": [");

        FakeProvider provider = provider(stateFile);
        ProviderException error = providerError(() -> provider.listManaged(deadline()), ErrorKind.PERMANENT,
                Operation.LIST_MANAGED, "");

        assertThat(error.detail()).contains(stateFile.toString(), "corrupt", "not valid JSON",
                "delete it to start with no instances");
        assertThat(provider.preflight(deadline())).singleElement()
                .satisfies(check -> assertThat(check.passed()).isFalse());
    }

    @Test
    void readsCreateNoDirectoriesAndTheFirstWriteDoes() {
        Path stateFile = directory.resolve("not/yet/state.json");
        FakeProvider provider = provider(stateFile);

        assertThat(provider.listManaged(deadline())).isEmpty();
        providerError(() -> provider.get("zone-a/proxy-1", deadline()), ErrorKind.NOT_FOUND, Operation.GET,
                "zone-a/proxy-1");
        assertThat(provider.preflight(deadline())).singleElement()
                .satisfies(check -> assertThat(check.passed()).isTrue());
        assertThat(directory.resolve("not")).doesNotExist();

        provider.create(request("proxy-1"), deadline());
        assertThat(stateFile).isRegularFile();
    }

    @Test
    void temporaryFilesOfAKilledWriterAreRemovedByTheNextWrite() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);
        provider.create(request("proxy-1"), deadline());
        Path leftover = Files.writeString(directory.resolve("state.json.4711.tmp"), "{\"version\": 3, \"inst");
        Path otherFiles = Files.writeString(directory.resolve("state.json.x.tmp"), "not ours");

        provider.create(request("proxy-2"), deadline());

        assertThat(leftover).doesNotExist();
        assertThat(otherFiles).as("a file the fake never writes").exists();
        assertThat(provider.listManaged(deadline())).hasSize(2);
    }

    @Test
    void fileCorruptedWhileInUseIsReportedAndNotOverwritten() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);
        Files.writeString(stateFile, "garbage");

        ProviderException error = providerError(() -> provider.create(request("proxy-1"), deadline()),
                ErrorKind.PERMANENT, Operation.CREATE, "zone-a/proxy-1");

        assertThat(error.detail()).contains("state.json is corrupt", "Move it aside");
        assertThat(Files.readString(stateFile)).isEqualTo("garbage");
        providerError(() -> provider.listManaged(deadline()), ErrorKind.PERMANENT, Operation.LIST_MANAGED, "");
    }

    @Test
    void fileOfAnotherVersionIsRefusedNamingTheVersion() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);
        Files.writeString(stateFile, "{\"version\": 5, \"instances\": [], \"shards\": {}}");

        ProviderException error = providerError(() -> provider.get("zone-a/proxy-1", deadline()),
                ErrorKind.PERMANENT, Operation.GET, "zone-a/proxy-1");

        assertThat(error.detail()).contains("version 5", "reads versions 1 to 4 only");
    }

    @Test
    void oversizedFileIsCorruptWithoutBeingReadWhole() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);
        try (RandomAccessFile sparse = new RandomAccessFile(stateFile.toFile(), "rw")) {
            sparse.setLength(65L * 1024 * 1024); // beyond the 64 MiB limit, without writing it
        }

        ProviderException error = providerError(() -> provider.listManaged(deadline()), ErrorKind.PERMANENT,
                Operation.LIST_MANAGED, "");

        assertThat(error.detail()).contains("larger than");
    }

    @Test
    void stateFileThatIsADirectoryIsUnreadable() throws IOException {
        Path stateFile = Files.createDirectory(directory.resolve("state.json"));
        FakeProvider provider = provider(stateFile);

        assertThat(catchThrowable(() -> provider.listManaged(deadline()))).isInstanceOf(ProviderException.class)
                .hasMessageContaining("cannot read state file")
                .hasMessageContaining("point stateFile elsewhere");
    }

    @Test
    void preflightReportsTheFileAndWhetherItCanBeRead() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);
        provider.create(request("proxy-1"), deadline());

        List<PreflightCheck> healthy = provider.preflight(deadline());
        Files.writeString(stateFile, "[]");
        List<PreflightCheck> corrupt = provider.preflight(deadline());

        assertThat(healthy).singleElement().satisfies(check -> {
            assertThat(check.passed()).isTrue();
            assertThat(check.name()).contains("state.json");
            assertThat(check.detail()).isEqualTo("1 instances recorded, 1 through this entry");
        });
        assertThat(corrupt).singleElement().satisfies(check -> {
            assertThat(check.passed()).isFalse();
            assertThat(check.detail()).contains("corrupt");
        });
    }

    @Test
    void waitingForALockHeldElsewhereEndsAtTheDeadline() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);

        try (FileChannel channel = FileChannel.open(directory.resolve("state.json.lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = channel.lock()) {
            channel.write(StandardCharsets.UTF_8.encode("pid=4711 host=elsewhere since=2030-01-01T00:00:00Z\n"));
            long start = System.nanoTime();
            ProviderException error = providerError(() -> provider.create(request("proxy-1"),
                    Deadline.after(Duration.ofMillis(300))), ErrorKind.TRANSIENT, Operation.CREATE, "zone-a/proxy-1");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1300));
            assertThat(held.isValid()).isTrue();
            assertThat(error.detail()).contains("waiting for the lock on state file " + stateFile,
                    "process 4711 on host elsewhere (since 2030-01-01T00:00:00Z) holds it", "state.json.lock");
        }
        assertThat(provider.create(request("proxy-1"), deadline())).isEqualTo("zone-a/proxy-1");
    }

    @Test
    void aLockHeldByAProcessThatRecordedNothingIsSaidToBeUnknown() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);

        try (FileChannel channel = FileChannel.open(directory.resolve("state.json.lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = channel.lock()) {
            ProviderException error = providerError(() -> provider.delete("zone-a/proxy-1",
                    Deadline.after(Duration.ofMillis(100))), ErrorKind.TRANSIENT, Operation.DELETE, "zone-a/proxy-1");

            assertThat(error.detail()).contains("another process (which one is unknown");
        }
    }

    @Test
    void theHolderOfTheLockRecordsItself() throws IOException {
        Path stateFile = directory.resolve("state.json");
        provider(stateFile).create(request("proxy-1"), deadline());

        assertThat(Files.readString(directory.resolve("state.json.lock")))
                .matches("pid=" + ProcessHandle.current().pid() + " host=\\S+ since=\\S+Z\n");
    }

    @Test
    void waitingForALockHeldElsewhereEndsAtAnInterrupt() throws Exception {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);

        try (FileChannel channel = FileChannel.open(directory.resolve("state.json.lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = channel.lock()) {
            CompletableFuture<Boolean> transientWithFlag = new CompletableFuture<>();
            Thread caller = new Thread(() -> {
                try {
                    provider.delete("zone-a/proxy-1", Deadline.none());
                    transientWithFlag.complete(false);
                } catch (ProviderException expected) {
                    transientWithFlag.complete(expected.kind() == ErrorKind.TRANSIENT
                            && Thread.currentThread().isInterrupted());
                }
            });
            caller.start();
            TimeUnit.MILLISECONDS.sleep(200);
            caller.interrupt();

            assertThat(transientWithFlag.get(1, TimeUnit.SECONDS)).isTrue();
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void hookErrorsAboutTheFileAreProviderErrors() throws IOException {
        Path stateFile = directory.resolve("state.json");
        FakeProvider provider = provider(stateFile);
        Files.write(stateFile, "{".getBytes(StandardCharsets.UTF_8));

        assertThat(catchThrowable(() -> provider.addUnmanaged("zone-a", "by-hand")))
                .isInstanceOf(ProviderException.class)
                .hasMessageContaining("corrupt");
    }

    private static Set<String> createMany(FakeProvider provider, String prefix) {
        Set<String> ids = new HashSet<>();
        for (int index = 0; index < 16; index++) {
            ids.add(provider.create(request(prefix + "-" + index), deadline()));
        }
        return ids;
    }
}
