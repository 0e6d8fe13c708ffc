package dev.egressproxies.integration.kvm;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real guest, end to end: the Debian image of {@code scripts/build-test-image.sh} served from a
 * loopback HTTP server, a {@code kvm2} entry (UEFI) against the stack's libvirtd through its sshd,
 * and one VM on the stack's isolated bridge. It proves what no other test can: cloud-init read our
 * NoCloud seed ISO (the user-data set the address {@value #GUEST_ADDRESS} and wrote a marker; the
 * meta-data named the host), the overlay booted from the cached base, and {@code get} reports the
 * address the guest agent saw. Delete leaves no domain, overlay, seed or NVRAM file; the base and
 * its marker stay cached.
 *
 * <p>The guest runs under {@code domainType: qemu} with the non-secure OVMF loader and variables
 * named explicitly: the nested KVM of these machines stops UEFI firmware with an emulation failure,
 * and the firmware libvirt would pick needs SMM (docs/test-stack.md). Booting under emulation takes a
 * minute or more; the figures are printed ({@code [real guest] ...}).
 *
 * <p>Not part of {@code ./mvnw verify}: run with {@code -Pguest-e2e} (docs/real-guest-test.md).
 */
@Tag("integration")
@Tag("guest")
@ExtendWith(NoKvmLeftovers.class)
class RealGuestEndToEndTest {
    /**
     * The entry's name. Deliberately without an {@code egress-it-} prefix: its base volume (named
     * after the entry) stays cached, so {@link NoKvmLeftovers} must not remove it; the next run
     * removes it (its image server listens on another port, part of the image's source, so it
     * fetches a base of its own), {@code test-stack.sh down} does, with the pool.
     */
    private static final String ENTRY = "guest-e2e";
    /** The image keys start with this, followed by the start of the image's sha256. */
    private static final String IMAGE_KEY_PREFIX = "debian-12-";
    private static final String MACHINE_TYPE = "guest";
    /** A documentation address (RFC 5737): it can only come from our user-data. */
    private static final String GUEST_ADDRESS = "192.0.2.10";
    private static final String MARKER_FILE = "/var/lib/egress-e2e/seed-marker";
    private static final String OVMF_LOADER = "/usr/share/OVMF/OVMF_CODE_4M.fd";
    private static final String OVMF_VARS_TEMPLATE = "/usr/share/OVMF/OVMF_VARS_4M.fd";
    /** Includes the first upload of the ~300 MB base through the SSH tunnel. */
    private static final Duration CREATE_TIMEOUT = Duration.ofMinutes(5);
    /** From create's return to RUNNING; an emulated UEFI boot to cloud-init's final stage takes 1 to 3 minutes. */
    private static final Duration BOOT_DEADLINE = Duration.ofMinutes(6);
    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(1);
    private static final Duration POLL_INTERVAL = Duration.ofSeconds(2);

    @TempDir
    Path temporary;

    @Test
    void guestConsumesTheSeedReportsTheUserDataAddressAndDeleteLeavesOnlyTheCachedBase() throws Exception {
        TestStack stack = TestStack.load();
        GuestImage image = GuestImage.buildOrReuse();
        report("image %s (%d MiB, sha256 %s)", image.file(), Files.size(image.file()) >> 20, image.sha256());
        String imageKey = IMAGE_KEY_PREFIX + image.sha256().substring(0, 12);
        assertThat(hostAddressesOf(stack.bridge())).as("addresses on the host side of bridge %s", stack.bridge())
                .isEmpty();

        String name = NoKvmLeftovers.GUEST_PREFIX + randomHex();
        String marker = "seed of " + name + " consumed";
        try (ImageServer server = new ImageServer().serveFile("/guest.qcow2", image.file());
             Kvm2Provider kvm2 = provider(config(server.url("/guest.qcow2"), imageKey, image.sha256()))) {
            // The server's port is part of the image's source, so each run fetches into a base of its own.
            String base = KvmTestConfig.kvm2Base(ENTRY, imageKey, server.url("/guest.qcow2"));
            removeOtherBases(stack, base);
            CreateRequest request = new CreateRequest(name, "uid-" + name,
                    new Placement(KvmTestConfig.HOST, MACHINE_TYPE, imageKey), userData(marker));
            long createStarted = System.nanoTime();
            String id = kvm2.create(request, Deadline.after(CREATE_TIMEOUT));
            try {
                long created = System.nanoTime();
                Instance running = awaitRunning(kvm2, id);
                long runningAt = System.nanoTime();
                report("create %s, then boot to RUNNING %s (emulated, UEFI)", seconds(created - createStarted),
                        seconds(runningAt - created));

                assertThat(running.ip()).as("the address the user-data set").isEqualTo(GUEST_ADDRESS);
                // The guest's NIC is a tap on the bridge; any other port (a NIC, a veth) would be an uplink.
                assertThat(bridgePorts(stack.bridge())).as("ports of bridge %s", stack.bridge()).isNotEmpty()
                        .allSatisfy(port -> assertThat(port).as("a guest's tap").contains("tun type tap"));
                assertThat(hostAddressesOf(stack.bridge())).as("addresses on the host side of %s", stack.bridge())
                        .isEmpty();
                GuestAgent agent = new GuestAgent(name);
                assertThat(agent.hostName()).as("the host name from meta-data").isEqualTo(name);
                assertThat(new String(agent.readFile(MARKER_FILE), UTF_8)).as("the marker user-data wrote")
                        .isEqualTo(marker + "\n");
            } finally {
                kvm2.delete(id, Deadline.after(CALL_TIMEOUT));
            }

            assertThat(Virsh.domains(name)).as("domains left after delete").isEmpty();
            assertThat(NoKvmLeftovers.volumesNamedWith(stack.pool(), name))
                    .as("overlay and seed left after delete").isEmpty();
            assertThat(Path.of("/var/lib/libvirt/qemu/nvram", name + "_VARS.fd")).as("the guest's NVRAM file")
                    .doesNotExist();
            assertThat(Virsh.volumes(stack.pool(), ENTRY + "+"))
                    .as("the cached base and its marker")
                    .containsExactlyInAnyOrder(base, base + ".sha256");
        }
    }

    /**
     * Cloud-config that gives the first ethernet interface (the first with a device behind it) the
     * documentation address, and writes the marker; cloud-init's own network config is disabled
     * in the image.
     */
    private static String userData(String marker) {
        return """
                #cloud-config
                write_files:
                  - path: %s
                    content: "%s\\n"
                runcmd:
                  - - sh
                    - -c
                    - >-
                      for link in /sys/class/net/*; do [ -e "$link/device" ] && break; done;
                      nic=${link##*/};
                      ip link set dev "$nic" up && ip address add %s/24 dev "$nic"
                """.formatted(MARKER_FILE, marker, GUEST_ADDRESS);
    }

    /**
     * Removes the cached bases (and markers) of this entry other than {@code base}: those of images
     * it booted before (a changed recipe makes a new image, which gets a new key) and those of earlier
     * runs, whose image server listened on another port; no VM uses them any more
     * ({@link NoKvmLeftovers} removed this test's instances before the class).
     */
    private static void removeOtherBases(TestStack stack, String base) {
        for (String volume : Virsh.volumes(stack.pool(), ENTRY + "+")) {
            if (!volume.equals(base) && !volume.equals(base + ".sha256")) {
                report("removing %s, the cached base of an older guest image or run", volume);
                Virsh.run("vol-delete", "--pool", stack.pool(), volume);
            }
        }
    }

    private static KvmTestConfig config(String imageUrl, String imageKey, String sha256) {
        return KvmTestConfig.kvm2().entry(ENTRY)
                .hostSetting("domainType", "qemu")
                .hostSetting("uefiLoader", KvmTestConfig.quoted(OVMF_LOADER))
                .hostSetting("uefiVarsTemplate", KvmTestConfig.quoted(OVMF_VARS_TEMPLATE))
                .machineType(MACHINE_TYPE, "{vcpus: 1, memoryMiB: 1024}")
                .catalogueImage(imageKey, "{url: " + KvmTestConfig.quoted(imageUrl) + ", sha256: " + sha256
                        + ", firmware: uefi}")
                // The image has the agent; the default vendor-data would install it from a mirror
                // the isolated guest cannot reach.
                .setting("vendorData", "\"\"");
    }

    private Kvm2Provider provider(KvmTestConfig config) throws Exception {
        return ConfiguredProviders.providerFromYaml(config.yaml(), ENTRY, Kvm2Provider.class,
                new TestProviderContext(temporary));
    }

    /** Polls get until the instance is RUNNING; fails with the last state seen at the deadline. */
    private static Instance awaitRunning(Kvm2Provider kvm2, String id) throws InterruptedException {
        long deadline = System.nanoTime() + BOOT_DEADLINE.toNanos();
        String last = "nothing yet";
        while (System.nanoTime() < deadline) {
            try {
                Instance instance = kvm2.get(id, Deadline.after(CALL_TIMEOUT));
                if (instance.state() == InstanceState.RUNNING) {
                    return instance;
                }
                last = instance.toString();
            } catch (ProviderException retryable) {
                if (retryable.kind() != ErrorKind.TRANSIENT) {
                    throw retryable;
                }
                last = retryable.getMessage();
            }
            Thread.sleep(POLL_INTERVAL.toMillis());
        }
        throw new AssertionError(id + " was not RUNNING within " + BOOT_DEADLINE + "; last seen: " + last
                + " (see its serial console with 'virsh console' while it runs)");
    }

    /** The IPv4 and IPv6 addresses on the host's side of the bridge, one {@code ip} line each. */
    private static List<String> hostAddressesOf(String bridge) {
        return Commands.run(10, "ip", "-o", "address", "show", "dev", bridge).lines()
                .filter(line -> !line.isBlank()).toList();
    }

    /** The bridge's ports, one {@code ip -details} line each. */
    private static List<String> bridgePorts(String bridge) {
        return Commands.run(10, "ip", "-d", "-o", "link", "show", "master", bridge).lines()
                .filter(line -> !line.isBlank()).toList();
    }

    private static String randomHex() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    private static String seconds(long nanos) {
        return String.format("%.1f s", nanos / 1e9);
    }

    private static void report(String format, Object... arguments) {
        System.out.println("[real guest] " + String.format(format, arguments));
    }
}
