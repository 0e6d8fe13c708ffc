package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.endtoend.EtcdCluster;
import dev.egressproxies.endtoend.ServeProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code egressctl serve} replicas on the stack's etcd cluster keeping two {@code kvm2}
 * entries (each on both stack hosts, 10 proxies) in force; the leader of one entry is killed with
 * SIGKILL while it creates. Another replica takes the entry over and finishes the set: every proxy
 * is one domain on one host, no name is ever on both hosts, and no overlay or seed is left without
 * its domain. The stack's VMs boot no operating system, so a healthy proxy is PROVISIONING.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2ReplicasEndToEndTest {
    private static final Duration CONVERGE = Duration.ofSeconds(240);

    private final TestStack stack = TestStack.load();
    private final EtcdCluster etcd = EtcdCluster.load();
    private final String entryA = NoKvmLeftovers.FAULT_PREFIX + "ha-" + randomHex() + "-a";
    private final String entryB = NoKvmLeftovers.FAULT_PREFIX + "ha-" + randomHex() + "-b";
    private final String prefix = "/egressctl/it-" + randomHex() + "/";
    private final List<ServeProcess> replicas = new ArrayList<>();

    @TempDir
    Path temp;

    @AfterEach
    void removeWhatTheEntriesMade() {
        replicas.forEach(ServeProcess::close);
        StackHypervisors.removeNamed(stack, entryA, entryB);
    }

    @Test
    void aLeaderKilledWhileItCreatesIsReplacedAndEveryProxyIsOneDomain() throws Exception {
        Path work = Files.createDirectories(temp.resolve("work"));
        Path config = Files.writeString(work.resolve("egress.yaml"), KvmTestConfig.document(
                KvmTestConfig.kvm2().entry(entryA).secondHost(), KvmTestConfig.kvm2().entry(entryB).secondHost()));
        EgressctlProcess egressctl = new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", config.toString()).withTimeout(Duration.ofMinutes(3));
        desire(egressctl, work, 10);
        DuplicateWatch duplicates = DuplicateWatch.start(stack, NoKvmLeftovers.FAULT_PREFIX + "ha-");
        for (String name : List.of("r1", "r2", "r3")) {
            replicas.add(ServeProcess.start(egressctl, "serve", "--etcd", etcd.endpointsArgument(), "--etcd-prefix",
                    prefix, "--replica", name, "--listen", "127.0.0.1:0", "--resync", "5s", "--grace", "30s"));
        }
        awaitProvisioning(replicas.get(0), 20);

        String leader = replicas.get(0).get("/v1/replicas").path("leaders").path(entryA).asText();
        ServeProcess victim = replicas.get(Integer.parseInt(leader.substring(1)) - 1);
        desire(egressctl, work, 14);
        long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (StackHypervisors.all(stack).stream().noneMatch(this::createsANewProxy)) {
            assertThat(System.nanoTime()).as("a create of p11..p14 by %s", leader).isLessThan(end);
            Thread.sleep(50);
        }
        long killed = System.nanoTime();
        victim.signal("KILL");
        ServeProcess survivor = replicas.stream().filter(replica -> replica != victim).findFirst().orElseThrow();
        awaitProvisioning(survivor, 24);
        System.out.printf("[kvm2 replicas] leader %s of %s killed during a create; 24 proxies PROVISIONING %d s later%n",
                leader, entryA, Duration.ofNanos(System.nanoTime() - killed).toSeconds());

        duplicates.stop();
        assertThat(duplicates.seen()).as("names on both hosts at once (%d polls)", duplicates.polls()).isEmpty();
        for (String entry : List.of(entryA, entryB)) {
            Map<String, Integer> domains = new LinkedHashMap<>();
            for (Virsh virsh : StackHypervisors.all(stack)) {
                List<String> here = virsh.domainsNamed(entry + "-");
                here.forEach(domain -> domains.merge(domain, 1, Integer::sum));
                for (String volume : virsh.volumesNamed(stack.pool(), entry + "+")) {
                    String owner = volume.substring(entry.length() + 1).replaceAll("\\.(qcow2|seed\\.iso)$", "");
                    // Overlays and seeds are named by their proxy; bases, leases and claims otherwise.
                    if (owner.startsWith(entry + "-p") && (volume.endsWith(".qcow2") || volume.endsWith(".seed.iso"))) {
                        assertThat(here).as("the domain of volume %s", volume).contains(owner);
                    }
                }
            }
            int expected = entry.equals(entryA) ? 14 : 10;
            assertThat(domains).as("domains of %s on both hosts", entry).hasSize(expected)
                    .allSatisfy((name, count) -> assertThat(count).as(name).isEqualTo(1));
        }
    }

    /** Whether an overlay or seed of p11..p14 exists on the host: a create of one has begun. */
    private boolean createsANewProxy(Virsh virsh) {
        return List.of("p11", "p12", "p13", "p14").stream().anyMatch(name -> !virsh.volumesNamed(stack.pool(),
                entryA + "+" + entryA + "-" + name).isEmpty());
    }

    private void desire(EgressctlProcess egressctl, Path work, int inA) throws IOException {
        StringBuilder set = new StringBuilder("proxies:\n");
        for (int index = 1; index <= 10; index++) {
            set.append(proxy(entryB, index));
        }
        for (int index = 1; index <= inA; index++) {
            set.append(proxy(entryA, index));
        }
        Path file = Files.writeString(work.resolve("proxies.yaml"), set.toString());
        EgressctlProcess.Result applied = egressctl.run("apply", "-f", file.toString(), "--etcd",
                etcd.endpointsArgument(), "--etcd-prefix", prefix);
        assertThat(applied.exitCode()).as(applied.toString()).isZero();
    }

    private static String proxy(String entry, int index) {
        return "  - {name: " + entry + "-p" + index + ", provider: " + entry + ", machineType: "
                + KvmTestConfig.MACHINE_TYPE + ", image: " + KvmTestConfig.IMAGE + "}\n";
    }

    private static JsonNode awaitProvisioning(ServeProcess replica, int count) {
        return replica.await("/v1/proxies", CONVERGE, count + " proxies PROVISIONING", document ->
                document.path("proxies").size() == count && StreamSupport.stream(document.path("proxies")
                        .spliterator(), false).allMatch(proxy -> proxy.path("state").asText().equals("PROVISIONING")
                        || proxy.path("state").asText().equals("RUNNING")));
    }

    private static String randomHex() {
        byte[] bytes = new byte[3];
        ThreadLocalRandom.current().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
