package dev.egressproxies.fake;

import static dev.egressproxies.fake.TestProviders.START;
import static dev.egressproxies.fake.TestProviders.deadline;
import static dev.egressproxies.fake.TestProviders.providerError;
import static dev.egressproxies.fake.TestProviders.request;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.fake.state.Version1State;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entries sharing one state file keep to the instances created through them, and instances
 * recorded before the file kept entries belong to none.
 */
class EntryScopeTest {
    private static final String OTHER = "fake-other";
    private static final String VERSION_1_FILE = Version1State.document(1, Version1State.INSTANCE);

    @TempDir
    Path directory;

    private final ManualClock clock = new ManualClock(START);
    private Path stateFile;

    private FakeProvider entry(String name) {
        stateFile = directory.resolve("state.json");
        return TestProviders.build(name, FakeConfig.defaults().withStateFile(stateFile), clock, directory);
    }

    @Test
    void entriesOnOneFileListOnlyTheirOwnInstances() {
        FakeProvider own = entry(TestProviders.ENTRY);
        FakeProvider other = entry(OTHER);
        String ownId = own.create(request("own"), deadline());
        String otherId = other.create(request("theirs"), deadline());

        assertThat(own.listManaged(deadline())).extracting(Instance::id).containsExactly(ownId);
        assertThat(other.listManaged(deadline())).extracting(Instance::id).containsExactly(otherId);
    }

    @Test
    void getDeleteAndCreateOfAnotherEntrysInstanceArePermanentNameTheOwnerAndChangeNothing() throws IOException {
        FakeProvider own = entry(TestProviders.ENTRY);
        FakeProvider other = entry(OTHER);
        String id = other.create(request("theirs"), deadline());
        other.stop(id);
        String before = Files.readString(stateFile);

        ProviderException get = providerError(() -> own.get(id, deadline()), ErrorKind.PERMANENT, Operation.GET, id);
        ProviderException delete = providerError(() -> own.delete(id, deadline()), ErrorKind.PERMANENT,
                Operation.DELETE, id);
        ProviderException create = providerError(() -> own.create(request("theirs"), deadline()),
                ErrorKind.PERMANENT, Operation.CREATE, id);

        assertThat(get.detail()).contains("created through provider entry 'fake-other'", "not reported");
        assertThat(delete.detail()).contains("created through provider entry 'fake-other'", "not deleted",
                "delete it through entry 'fake-other'");
        assertThat(create.detail()).contains("created through provider entry 'fake-other'", "not taken over",
                "choose another name");
        assertThat(Files.readString(stateFile)).as("the state file after the refusals").isEqualTo(before);
        assertThat(other.get(id, deadline()).uid()).isEqualTo("uid-theirs");
    }

    @Test
    void instancesOfAVersion1FileBelongToNoEntryAndAreRefusedWithHowToFixIt() throws IOException {
        Files.writeString(directory.resolve("state.json"), VERSION_1_FILE);
        FakeProvider own = entry(TestProviders.ENTRY);

        assertThat(own.listManaged(deadline())).isEmpty();
        ProviderException get = providerError(() -> own.get("zone-a/old", deadline()), ErrorKind.PERMANENT,
                Operation.GET, "zone-a/old");
        providerError(() -> own.delete("zone-a/old", deadline()), ErrorKind.PERMANENT, Operation.DELETE, "zone-a/old");
        ProviderException create = providerError(() -> own.create(request("old"), deadline()), ErrorKind.PERMANENT,
                Operation.CREATE, "zone-a/old");

        assertThat(get.detail()).contains(stateFile.toRealPath().toString(), "no entry manages it",
                "remove the record whose \"id\" is \"zone-a/old\"", "set the record's \"entry\"");
        assertThat(create.detail()).contains("choose another name");
        assertThat(Files.readString(stateFile)).as("the state file after the refusals").isEqualTo(VERSION_1_FILE);
        assertThat(own.preflight(deadline())).singleElement().satisfies(check ->
                assertThat(check.detail()).startsWith("1 instances recorded, 0 through this entry, 1 recorded before"));
    }

    @Test
    void rewritingAVersion1FileKeepsItsInstancesOfNoEntry() throws IOException {
        Files.writeString(directory.resolve("state.json"), VERSION_1_FILE);
        FakeProvider own = entry(TestProviders.ENTRY);

        String id = own.create(request("new"), deadline());

        JsonNode state = new ObjectMapper().readTree(stateFile.toFile());
        assertThat(state.get("version").intValue()).isEqualTo(3);
        assertThat(state.get("instances")).extracting(instance -> instance.get("entry").asText())
                .as("entries of zone-a/new and zone-a/old").containsExactly(TestProviders.ENTRY, "");
        assertThat(own.get(id, deadline()).ip()).as("not the old instance's address").isEqualTo("198.51.100.1");
        assertThat(own.listManaged(deadline())).extracting(Instance::id).containsExactly(id);
    }

    @Test
    void anInstanceOfNoEntryHandedToAnEntryByEditingTheFileIsItsOwn() throws IOException {
        Files.writeString(directory.resolve("state.json"),
                Version1State.document(1, Version1State.instanceHandedTo(TestProviders.ENTRY)));
        FakeProvider own = entry(TestProviders.ENTRY);

        assertThat(own.listManaged(deadline())).extracting(Instance::id).containsExactly("zone-a/old");
        own.delete("zone-a/old", deadline());
        assertThat(own.listManaged(deadline())).isEmpty();
    }

    @Test
    void concurrentCreatesThroughTwoEntriesOnOneFileLoseNothing() throws Exception {
        FakeProvider own = entry(TestProviders.ENTRY);
        FakeProvider other = entry(OTHER);

        CompletableFuture<Void> viaOther = CompletableFuture.runAsync(() -> createMany(other, "theirs"));
        createMany(own, "own");
        viaOther.get(60, TimeUnit.SECONDS);

        assertThat(own.listManaged(deadline())).hasSize(16).extracting(Instance::id).allMatch(id -> id.contains("/own-"));
        assertThat(other.listManaged(deadline())).hasSize(16).extracting(Instance::id)
                .allMatch(id -> id.contains("/theirs-"));
        assertThat(new ObjectMapper().readTree(stateFile.toFile()).get("instances")).hasSize(32);
    }

    private static void createMany(FakeProvider provider, String prefix) {
        IntStream.range(0, 16).forEach(index -> provider.create(request(prefix + "-" + index), deadline()));
    }
}
