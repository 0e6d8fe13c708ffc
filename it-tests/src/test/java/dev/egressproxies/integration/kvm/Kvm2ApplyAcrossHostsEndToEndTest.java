package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code egressctl apply} converging a {@code kvm2} entry with two hosts on the real stack, each
 * step a separate {@code egressctl} process: apply a set of two proxies on the first host; move one
 * to the second host with another machine type; {@code apply --dry-run} shows the replacement and
 * changes nothing; {@code apply} replaces it (a name is one instance per entry, so the old one goes
 * before the new one is made); a second apply plans nothing; deleting both leaves no domain, overlay
 * or seed on either host.
 *
 * <p>The hosts are the stack's two independent libvirtds ({@link KvmTestConfig#secondHost()}). The
 * entry's name is unique and starts with {@value NoKvmLeftovers#FAULT_PREFIX}, so everything it
 * makes on either host (its cached base volumes included) starts with it, and the test removes it
 * all at the end.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2ApplyAcrossHostsEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String OTHER_MACHINE_TYPE = "medium";

    private final TestStack stack = TestStack.load();
    private final String entry = NoKvmLeftovers.FAULT_PREFIX + "apply-" + randomHex();
    private final String first = entry + "-a";
    private final String second = entry + "-b";

    @TempDir
    Path temp;

    @AfterEach
    void removeWhatTheEntryMade() {
        StackHypervisors.removeNamed(stack, entry);
    }

    @Test
    void applyMovesAProxyToTheOtherHostAndConverges() throws IOException {
        KvmTestConfig config = KvmTestConfig.kvm2().entry(entry).secondHost()
                .machineType(OTHER_MACHINE_TYPE, "{vcpus: 1, memoryMiB: 192}");
        Path work = Files.createDirectories(temp.resolve("work"));
        Path configFile = Files.writeString(work.resolve("egress.yaml"), config.yaml());
        EgressctlProcess egressctl = new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", configFile.toString());
        Path set = work.resolve("proxies.yaml");

        desire(set, KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE);
        expectSuccess(egressctl.run("apply", "-f", set.toString()));
        String firstId = id(KvmTestConfig.HOST, first);
        String oldId = id(KvmTestConfig.HOST, second);
        assertThat(listedIds(egressctl)).containsExactlyInAnyOrder(firstId, oldId);

        desire(set, KvmTestConfig.HOST2, OTHER_MACHINE_TYPE);
        EgressctlProcess.Result dryRun = egressctl.run("apply", "-f", set.toString(), "--dry-run");
        System.out.println("[apply across hosts] dry run:\n" + dryRun.out());
        expectSuccess(dryRun);
        assertThat(dryRun.out()).as(dryRun.toString()).contains("-/+ replace " + oldId,
                "zone: " + KvmTestConfig.HOST + " -> " + KvmTestConfig.HOST2,
                "machineType: " + KvmTestConfig.MACHINE_TYPE + " -> " + OTHER_MACHINE_TYPE);
        assertThat(dryRun.out()).as("the unchanged proxy is not replaced").doesNotContain("replace " + firstId);
        assertThat(listedIds(egressctl)).as("after the dry run").containsExactlyInAnyOrder(firstId, oldId);
        assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST2).domainsNamed(entry))
                .as("domains on the second host after the dry run").isEmpty();

        EgressctlProcess.Result applied = egressctl.run("apply", "-f", set.toString());
        System.out.println("[apply across hosts] apply:\n" + applied.out());
        expectSuccess(applied);
        String newId = id(KvmTestConfig.HOST2, second);
        assertThat(listedIds(egressctl)).containsExactlyInAnyOrder(firstId, newId);
        assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST).domainsNamed(entry)).containsExactly(first);
        assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST2).domainsNamed(entry)).containsExactly(second);
        JsonNode moved = json(egressctl.run("get", newId, "-o", "json"));
        assertThat(moved.get("name").asText()).isEqualTo(second);
        assertThat(StackHypervisors.virsh(stack, KvmTestConfig.HOST2).virsh("dumpxml", second))
                .as("the new domain's machine type").contains("<memory unit='KiB'>196608</memory>");

        JsonNode again = json(egressctl.run("apply", "-f", set.toString(), "-o", "json"));
        assertThat(again.get("plan")).as(again.toString()).isEmpty();

        for (String id : List.of(firstId, newId)) {
            expectSuccess(egressctl.run("delete", id));
        }
        assertThat(listedIds(egressctl)).isEmpty();
        for (String host : List.of(KvmTestConfig.HOST, KvmTestConfig.HOST2)) {
            Virsh virsh = StackHypervisors.virsh(stack, host);
            assertThat(virsh.domainsNamed(entry)).as("domains on host %s", host).isEmpty();
            assertThat(virsh.volumesNamed(stack.pool(), entry)).as("volumes on host %s but the cached base", host)
                    .allMatch(volume -> volume.startsWith(entry + "+" + KvmTestConfig.IMAGE + ".")
                            && volume.contains(".base."));
        }
    }

    /** Writes the desired set: the first proxy on the first host as created, the second as given. */
    private void desire(Path set, String secondZone, String secondMachineType) throws IOException {
        Files.writeString(set, """
                proxies:
                  - {name: %s, provider: %s, zone: %s, machineType: %s, image: %s}
                  - {name: %s, provider: %s, zone: %s, machineType: %s, image: %s}
                """.formatted(first, entry, KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, KvmTestConfig.IMAGE,
                second, entry, secondZone, secondMachineType, KvmTestConfig.IMAGE));
    }

    private String id(String host, String name) {
        return entry + "/" + host + "/" + name;
    }

    private List<String> listedIds(EgressctlProcess egressctl) throws IOException {
        List<String> ids = new ArrayList<>();
        json(egressctl.run("list", "--provider", entry, "-o", "json"))
                .forEach(instance -> ids.add(instance.get("id").asText()));
        return ids;
    }

    private static void expectSuccess(EgressctlProcess.Result result) {
        assertThat(result.exitCode()).as(result.toString()).isZero();
    }

    private static JsonNode json(EgressctlProcess.Result result) throws IOException {
        expectSuccess(result);
        return JSON.readTree(result.out());
    }

    private static String randomHex() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }
}
