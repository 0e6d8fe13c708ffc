package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
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
 * <p>Both entries point at the stack's one libvirtd and mark their domains with the same metadata,
 * so each entry also lists the other's instance: this test checks that each entry's instance shows
 * up under that entry's prefix, not which entries list a domain.
 * Instance names start with {@code egress-it-cf-}, so {@link NoKvmLeftovers} removes what an
 * aborted run left; the test itself checks that its deletes left no domain, overlay or seed.
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

        List<String> listed = listedIds(egressctl);
        System.out.println("[side by side] egressctl list: " + listed);
        assertThat(listed).contains(kvmId, kvm2Id);
        expectInstance(json(egressctl.run("get", kvmId, "-o", "json")), kvmId, kvm.entry());
        expectInstance(json(egressctl.run("get", kvm2Id, "-o", "json")), kvm2Id, kvm2.entry());

        for (String id : List.of(kvmId, kvm2Id)) {
            EgressctlProcess.Result deleted = egressctl.run("delete", id);
            assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
        }
        assertThat(listedIds(egressctl)).doesNotContain(kvmId, kvm2Id);
        assertThat(Virsh.domains(NAME_PREFIX)).as("domains").isEmpty();
        assertThat(Virsh.volumes(kvm.stack().pool(), NAME_PREFIX)).as("overlays and seeds").isEmpty();
    }

    /** Creates an instance with the entry's one placement; returns its entry-prefixed ID. */
    private static String create(EgressctlProcess egressctl, KvmTestConfig entry, String name) throws IOException {
        JsonNode created = json(egressctl.run("create", name, "--provider", entry.entry(), "--zone", KvmTestConfig.HOST,
                "--machine-type", KvmTestConfig.MACHINE_TYPE, "--image", KvmTestConfig.IMAGE, "-o", "json"));
        assertThat(created.get("entry").asText()).isEqualTo(entry.entry());
        return created.get("id").asText();
    }

    private static List<String> listedIds(EgressctlProcess egressctl) throws IOException {
        List<String> ids = new ArrayList<>();
        json(egressctl.run("list", "-o", "json")).forEach(instance -> ids.add(instance.get("id").asText()));
        return ids;
    }

    /** The stack's image boots no operating system, so an instance stays PROVISIONING without an address. */
    private static void expectInstance(JsonNode instance, String id, String entry) {
        assertThat(instance.get("id").asText()).isEqualTo(id);
        assertThat(instance.get("entry").asText()).isEqualTo(entry);
        assertThat(instance.get("state").asText()).isEqualTo("PROVISIONING");
        assertThat(instance.get("ip").asText()).isEmpty();
        assertThat(instance.get("uid").asText()).isNotBlank();
    }

    private static JsonNode json(EgressctlProcess.Result result) throws IOException {
        assertThat(result.exitCode()).as(result.toString()).isZero();
        return JSON.readTree(result.out());
    }
}
