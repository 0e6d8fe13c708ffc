package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code kvm} entry and a {@code kvm2} entry in one configuration file, driven side by side by
 * the packaged {@code egressctl} launcher on the real stack: each process builds both entries in
 * one runtime, and each entry creates, lists, reads and deletes its own instance.
 *
 * <p>Both entries place their domains on the stack's one libvirtd, and each domain's metadata
 * names the entry that created it. So each entry lists only its own instance, and an ID or name of
 * the other entry's instance given to the wrong entry is refused (exit 2, PERMANENT) with nothing
 * changed: without that, {@code egressctl apply} on one entry would delete the other's instances
 * as orphans. Instance names start with {@code egress-it-cf-}, so {@link NoKvmLeftovers} removes
 * what an aborted run left; the test itself checks that its deletes left no domain, overlay or seed.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class KvmAndKvm2SideBySideTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NAME_PREFIX = NoKvmLeftovers.CONFORMANCE_PREFIX + "side-by-side-";

    @TempDir
    Path temp;

    @Test
    void bothEntriesCreateListGetAndDeleteInOneRuntime() throws IOException {
        KvmTestConfig kvm = KvmTestConfig.standard();
        KvmTestConfig kvm2 = KvmTestConfig.kvm2();
        Path work = Files.createDirectories(temp.resolve("work"));
        Path config = Files.writeString(work.resolve("egress.yaml"), KvmTestConfig.document(kvm, kvm2));
        EgressctlProcess egressctl = new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", config.toString());

        JsonNode providers = json(egressctl.run("providers", "-o", "json"));
        assertThat(providers.get("entries")).extracting(entry -> entry.get("type").asText())
                .containsExactly("kvm", "kvm2");

        String kvmId = create(egressctl, kvm, NAME_PREFIX + "kvm");
        String kvm2Id = create(egressctl, kvm2, NAME_PREFIX + "kvm2");
        assertThat(kvmId).isEqualTo(kvm.entry() + "/" + KvmTestConfig.HOST + "/" + NAME_PREFIX + "kvm");
        assertThat(kvm2Id).isEqualTo(kvm2.entry() + "/" + KvmTestConfig.HOST + "/" + NAME_PREFIX + "kvm2");

        assertThat(listedIds(egressctl, "--provider", kvm.entry())).as("the kvm entry's instances")
                .containsExactly(kvmId);
        assertThat(listedIds(egressctl, "--provider", kvm2.entry())).as("the kvm2 entry's instances")
                .containsExactly(kvm2Id);
        assertThat(listedIds(egressctl)).as("every entry's instances, each once").containsExactlyInAnyOrder(kvmId,
                kvm2Id);
        String kvmUid = expectInstance(json(egressctl.run("get", kvmId, "-o", "json")), kvmId, kvm.entry());
        String kvm2Uid = expectInstance(json(egressctl.run("get", kvm2Id, "-o", "json")), kvm2Id, kvm2.entry());

        refusedThroughTheWrongEntry(egressctl, NAME_PREFIX + "kvm2", kvm2, kvm);
        refusedThroughTheWrongEntry(egressctl, NAME_PREFIX + "kvm", kvm, kvm2);
        assertThat(Virsh.domains(NAME_PREFIX)).as("domains after the refusals")
                .containsExactlyInAnyOrder(NAME_PREFIX + "kvm", NAME_PREFIX + "kvm2");
        assertThat(NoKvmLeftovers.volumesNamedWith(kvm.stack().pool(), NAME_PREFIX))
                .as("overlays and seeds after the refusals, each named after its entry")
                .containsExactlyInAnyOrder(InstanceVolumes.overlay(kvm.entry(), NAME_PREFIX + "kvm"),
                        InstanceVolumes.seed(kvm.entry(), NAME_PREFIX + "kvm"),
                        InstanceVolumes.overlay(kvm2.entry(), NAME_PREFIX + "kvm2"),
                        InstanceVolumes.seed(kvm2.entry(), NAME_PREFIX + "kvm2"));
        assertThat(expectInstance(json(egressctl.run("get", kvmId, "-o", "json")), kvmId, kvm.entry()))
                .as("the kvm instance, unchanged").isEqualTo(kvmUid);
        assertThat(expectInstance(json(egressctl.run("get", kvm2Id, "-o", "json")), kvm2Id, kvm2.entry()))
                .as("the kvm2 instance, unchanged").isEqualTo(kvm2Uid);

        for (String id : List.of(kvmId, kvm2Id)) {
            EgressctlProcess.Result deleted = egressctl.run("delete", id);
            assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
        }
        assertThat(listedIds(egressctl)).isEmpty();
        assertThat(Virsh.domains(NAME_PREFIX)).as("domains").isEmpty();
        assertThat(NoKvmLeftovers.volumesNamedWith(kvm.stack().pool(), NAME_PREFIX)).as("overlays and seeds")
                .isEmpty();
    }

    /** Creates an instance with the entry's one placement; returns its entry-prefixed ID. */
    private static String create(EgressctlProcess egressctl, KvmTestConfig entry, String name) throws IOException {
        JsonNode created = json(egressctl.run("create", name, "--provider", entry.entry(), "--zone", KvmTestConfig.HOST,
                "--machine-type", KvmTestConfig.MACHINE_TYPE, "--image", KvmTestConfig.IMAGE, "-o", "json"));
        assertThat(created.get("entry").asText()).isEqualTo(entry.entry());
        return created.get("id").asText();
    }

    /**
     * Gets, deletes and creates the instance {@code name} of {@code owner} through {@code wrong}:
     * each is refused as PERMANENT, naming the owner. The caller checks that nothing changed.
     */
    private static void refusedThroughTheWrongEntry(EgressctlProcess egressctl, String name, KvmTestConfig owner,
                                                    KvmTestConfig wrong) {
        String wrongId = wrong.entry() + "/" + KvmTestConfig.HOST + "/" + name;
        List<EgressctlProcess.Result> refused = List.of(
                egressctl.run("get", wrongId, "-o", "json"),
                egressctl.run("delete", wrongId),
                egressctl.run("create", name, "--provider", wrong.entry(), "--zone", KvmTestConfig.HOST,
                        "--machine-type", KvmTestConfig.MACHINE_TYPE, "--image", KvmTestConfig.IMAGE, "-o", "json"));
        for (EgressctlProcess.Result result : refused) {
            System.out.println("[side by side] through the wrong entry: " + result.commandLine() + " -> exit "
                    + result.exitCode() + ": " + result.err().strip());
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(2);
            assertThat(result.err()).as(result.toString())
                    .contains("was created through provider entry '" + owner.entry() + "', not '" + wrong.entry() + "'",
                            " it through entry '" + owner.entry() + "'");
        }
    }

    /** The IDs of the instances listed (with the given options) that this test created. */
    private static List<String> listedIds(EgressctlProcess egressctl, String... options) throws IOException {
        List<String> arguments = new ArrayList<>(List.of("list", "-o", "json"));
        arguments.addAll(List.of(options));
        List<String> ids = new ArrayList<>();
        json(egressctl.run(arguments.toArray(String[]::new))).forEach(instance -> ids.add(instance.get("id").asText()));
        return ids.stream().filter(id -> id.contains("/" + NAME_PREFIX)).toList();
    }

    /**
     * Checks the instance as the stack's image leaves it (it boots no operating system, so it stays
     * PROVISIONING without an address) and returns its UID.
     */
    private static String expectInstance(JsonNode instance, String id, String entry) {
        assertThat(instance.get("id").asText()).isEqualTo(id);
        assertThat(instance.get("entry").asText()).isEqualTo(entry);
        assertThat(instance.get("state").asText()).isEqualTo("PROVISIONING");
        assertThat(instance.get("ip").asText()).isEmpty();
        assertThat(instance.get("uid").asText()).isNotBlank();
        return instance.get("uid").asText();
    }

    private static JsonNode json(EgressctlProcess.Result result) throws IOException {
        assertThat(result.exitCode()).as(result.toString()).isZero();
        return JSON.readTree(result.out());
    }
}
