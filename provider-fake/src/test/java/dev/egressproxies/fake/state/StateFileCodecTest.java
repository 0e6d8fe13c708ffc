package dev.egressproxies.fake.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class StateFileCodecTest {
    private static final Instant CREATED = Instant.parse("2030-01-01T00:00:00.123456789Z");

    private final StateFileCodec codec = new StateFileCodec();

    @Test
    void managedAndUnmanagedInstancesSurviveARoundTrip() throws StateFormatException {
        Map<String, StoredInstance> instances = new TreeMap<>();
        instances.put("zone-a/proxy-1", new StoredInstance("zone-a/proxy-1", "proxy-1", true, "lab", "uid-1", CREATED,
                CREATED.plusSeconds(60), true, "198.51.100.1", "small", "debian-12", "ab12"));
        instances.put("zone-a/by-hand", new StoredInstance("zone-a/by-hand", "by-hand", false, "", "", null, CREATED,
                false, "198.51.100.2", "", "", ""));

        assertThat(codec.decode(encode(instances)).instances()).isEqualTo(instances);
    }

    @Test
    void emptyStateRoundTrips() throws StateFormatException {
        assertThat(codec.decode(encode(Map.of()))).isEqualTo(StateDocument.EMPTY);
    }

    @Test
    void textThatIsNotJsonIsReportedWithItsLine() {
        assertThatThrownBy(() -> decode("{\n  \"version\": 1,\n  oops"))
                .isInstanceOf(StateFormatException.class)
                .hasMessageContaining("not valid JSON")
                .hasMessageContaining("line 3");
    }

    @Test
    void emptyFileHoldsNoObject() {
        assertThatThrownBy(() -> decode("")).hasMessageContaining("does not hold a JSON object");
    }

    @Test
    void trailingContentIsCorruption() {
        assertThatThrownBy(() -> decode("{\"version\": 1, \"instances\": []} {}"))
                .isInstanceOf(StateFormatException.class);
    }

    @Test
    void missingVersionSaysTheFileIsSomeoneElses() {
        assertThatThrownBy(() -> decode("{\"instances\": []}")).hasMessageContaining("no integer 'version'");
    }

    @Test
    void otherVersionIsNamed() {
        assertThatThrownBy(() -> decode("{\"version\": 7, \"instances\": []}"))
                .hasMessageContaining("version 7")
                .hasMessageContaining("reads versions 1 to 4 only");
    }

    @Test
    void missingFieldOfAnInstanceIsNamed() {
        assertThatThrownBy(() -> decode("{\"version\": 3, \"instances\": [{\"id\": \"zone-a/x\", \"name\": \"x\"}]}"))
                .hasMessageContaining("does not match")
                .hasMessageContaining("managed");
    }

    @Test
    void versionThreeWritesTheEntryAndUserDataDigestOfEachInstance() {
        Map<String, StoredInstance> one = Map.of("zone-a/x", new StoredInstance("zone-a/x", "x", true, "lab", "u",
                CREATED, CREATED, false, "198.51.100.1", "small", "debian-12", "ab12"));

        assertThat(new String(encode(one), StandardCharsets.UTF_8))
                .contains("\"version\" : 3", "\"entry\" : \"lab\"", "\"userDataSha256\" : \"ab12\"");
    }

    @Test
    void instancesOfVersionTwoHaveAnUnknownUserDataDigestAndKeepTheirPlacement() throws StateFormatException {
        StoredInstance read = decode(Version1State.document(2, Version1State.instanceHandedTo("lab")))
                .get("zone-a/old");

        assertThat(read.userDataSha256()).as("user-data digest of a version 2 record").isEmpty();
        assertThat(read.createdThrough("lab")).isTrue();
        assertThat(read.zone()).isEqualTo("zone-a");
        assertThat(read.machineType()).isEqualTo("small");
        assertThat(read.image()).isEqualTo("debian-12");
    }

    @Test
    void instanceOfVersionThreeWithoutUserDataDigestIsCorruption() {
        assertThatThrownBy(() -> decode(Version1State.document(3, Version1State.instanceHandedTo("lab"))))
                .hasMessageContaining("does not match")
                .hasMessageContaining("userDataSha256");
    }

    @Test
    void instanceOfVersionThreeWithoutEntryIsCorruption() {
        assertThatThrownBy(() -> decode(Version1State.document(3, Version1State.INSTANCE.replace("\"managed\"",
                "\"userDataSha256\": \"\", \"managed\""))))
                .hasMessageContaining("does not match")
                .hasMessageContaining("entry");
    }

    @Test
    void instancesOfVersionOneBelongToNoEntry() throws StateFormatException {
        StoredInstance read = decode(Version1State.document(1, Version1State.INSTANCE))
                .get("zone-a/old");

        assertThat(read.entry()).isEmpty();
        assertThat(read.ofNoEntry()).isTrue();
        assertThat(read.createdThrough("")).as("the empty name is no entry's").isFalse();
        assertThat(read.uid()).isEqualTo("uid-old");
        assertThat(read.userDataSha256()).isEmpty();
    }

    @Test
    void entryAddedByHandToVersionOneIsKept() throws StateFormatException {
        assertThat(decode(Version1State.document(1, Version1State.instanceHandedTo("lab"))).get("zone-a/old")
                .createdThrough("lab")).isTrue();
    }

    @Test
    void unknownFieldIsCorruption() {
        assertThatThrownBy(() -> decode("{\"version\": 1, \"instances\": [], \"extra\": true}"))
                .hasMessageContaining("extra");
    }

    @Test
    void instanceListedTwiceIsCorruption() {
        Map<String, StoredInstance> one = Map.of("zone-a/x", new StoredInstance("zone-a/x", "x", true, "lab", "u", CREATED,
                CREATED, false, "198.51.100.1", "small", "debian-12", ""));
        String json = new String(encode(one), StandardCharsets.UTF_8);
        String instance = json.substring(json.indexOf('{', json.indexOf('[')), json.lastIndexOf(']'));
        String twice = json.replace(instance, instance.strip() + ", " + instance.strip());

        assertThatThrownBy(() -> decode(twice)).hasMessageContaining("lists instance 'zone-a/x' twice");
    }

    @Test
    void operationRecordsSurviveARoundTripAsVersionFour() throws StateFormatException {
        Map<String, StoredInstance> one = Map.of("zone-a/x", new StoredInstance("zone-a/x", "x", true, "lab", "u",
                CREATED, CREATED, false, "198.51.100.1", "small", "debian-12", "ab12"));
        StateDocument document = new StateDocument(one, List.of(
                record(7, CREATED.plusMillis(5)).end(CREATED.plusMillis(9), "TRANSIENT"),
                new OperationRecord(8, "lab", "delete", "zone-a/x", new ProcessIdentity(99, null, "other"),
                        CREATED.plusMillis(10), null, null)));

        byte[] json = codec.encode(document);

        assertThat(new String(json, StandardCharsets.UTF_8)).contains("\"version\" : 4", "\"seq\" : 7",
                "\"processStart\" : null", "\"ended\" : \"2030-01-01T00:00:00.132456789Z\"", "\"outcome\" : null");
        assertThat(codec.decode(json)).isEqualTo(document);
    }

    @Test
    void documentWithoutRecordsStaysVersionThreeForBuildsThatPredateTheLog() {
        assertThat(new String(encode(Map.of()), StandardCharsets.UTF_8))
                .contains("\"version\" : 3").doesNotContain("operations");
    }

    @Test
    void operationsInAVersionThreeFileAreAnUnknownField() {
        assertThatThrownBy(() -> decode("{\"version\": 3, \"instances\": [], \"operations\": []}"))
                .hasMessageContaining("unknown field 'operations'");
    }

    @Test
    void versionFourWithoutOperationsIsCorruption() {
        assertThatThrownBy(() -> decode("{\"version\": 4, \"instances\": []}"))
                .hasMessageContaining("no 'operations' field");
    }

    @Test
    void recordsOutOfOrderAreCorruption() {
        String json = new String(codec.encode(new StateDocument(Map.of(), List.of(record(7, CREATED),
                record(8, CREATED)))), StandardCharsets.UTF_8).replace("\"seq\" : 8", "\"seq\" : 6");

        assertThatThrownBy(() -> decode(json)).hasMessageContaining("record 6 after record 7");
    }

    @Test
    void recordEndedWithoutOutcomeIsCorruption() {
        String json = new String(codec.encode(new StateDocument(Map.of(), List.of(record(7, CREATED)
                .end(CREATED, "ok")))), StandardCharsets.UTF_8).replace("\"ok\"", "null");

        assertThatThrownBy(() -> decode(json)).hasMessageContaining("record 7 has only one of 'ended' and 'outcome'");
    }

    @Test
    void recordLackingAFieldNamesIt() {
        String json = new String(codec.encode(new StateDocument(Map.of(), List.of(record(7, CREATED)))),
                StandardCharsets.UTF_8).replace("\"host\" : \"build-7\",", "");

        assertThatThrownBy(() -> decode(json)).hasMessageContaining("an operation record lacks the field 'host'");
    }

    /** An open record of a create by process 4711 on build-7. */
    private static OperationRecord record(long seq, Instant started) {
        return new OperationRecord(seq, "lab", "create", "zone-a/x", new ProcessIdentity(4711, CREATED, "build-7"),
                started, null, null);
    }

    private byte[] encode(Map<String, StoredInstance> instances) {
        return codec.encode(new StateDocument(instances, List.of()));
    }

    private Map<String, StoredInstance> decode(String json) throws StateFormatException {
        return codec.decode(json.getBytes(StandardCharsets.UTF_8)).instances();
    }
}
