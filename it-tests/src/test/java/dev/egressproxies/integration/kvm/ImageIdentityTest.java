package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.PreflightCheck;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.kvm.KvmProvider;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the user configured is what boots, on the real stack: the base volume a VM's overlay backs
 * on holds the bytes of the URL its entry names for the image key, read back from the pool's folder.
 * Two {@code kvm} entries whose image of one key comes from two URLs get a base each; a {@code kvm2}
 * entry whose unpinned image moved to another URL fetches a new base and keeps the old one for the
 * VM backing on it; and {@code check} reports a base as unused once no overlay backs on it.
 * Everything is named with {@value NoKvmLeftovers#FAULT_PREFIX} and removed after each test.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class ImageIdentityTest {
    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(1);
    private static final String OTHER_PATH = "/other.qcow2";

    @TempDir
    Path temporary;

    private final TestStack stack = TestStack.load();
    private final String token = NoKvmLeftovers.FAULT_PREFIX + "identity-"
            + HexFormat.of().formatHex(Kvm2CrashConsistencyTest.randomBytes());

    @AfterEach
    void removeWhatTheTestMade() {
        Kvm2CrashConsistencyTest.removeNamedWith(stack, token);
    }

    @Test
    void twoKvmEntriesWithOneImageKeyAndTwoUrlsBootEachFromItsOwnUrlsBytes() throws Exception {
        Path other = otherImage();
        String key = token + "-img";
        try (ImageServer server = new ImageServer().serve(OTHER_PATH, Files.readAllBytes(other))) {
            KvmTestConfig first = KvmTestConfig.standard().entry(token + "-a");
            String firstUrl = first.stackImageUrl();
            first.image(key, firstUrl);
            KvmTestConfig second = KvmTestConfig.standard().entry(token + "-b").image(key, server.url(OTHER_PATH));
            String firstBase = KvmTestConfig.kvmBase(key, firstUrl);
            String secondBase = KvmTestConfig.kvmBase(key, server.url(OTHER_PATH));

            try (KvmProvider a = kvm(first); KvmProvider b = kvm(second)) {
                String firstId = a.create(Requests.request(token + "-vm-a", placement(key)), deadline());
                String secondId = b.create(Requests.request(token + "-vm-b", placement(key)), deadline());

                report("kvm: %s boots from %s, %s from %s", firstId, firstBase, secondId, secondBase);
                assertThat(firstBase).isNotEqualTo(secondBase);
                assertThat(poolFileSha256(firstBase)).as("sha256 of %s", firstBase)
                        .isEqualTo(KvmTestConfig.sha256(stack.qcow2Image()));
                assertThat(poolFileSha256(secondBase)).as("sha256 of %s", secondBase)
                        .isEqualTo(KvmTestConfig.sha256(other));
                assertThat(backingStore(first.entry(), token + "-vm-a")).contains(">" + poolPath(firstBase) + "<");
                assertThat(backingStore(second.entry(), token + "-vm-b")).contains(">" + poolPath(secondBase) + "<");
                assertThat(server.gets(OTHER_PATH)).as("downloads of the second entry's URL").isEqualTo(1);

                a.delete(firstId, deadline());
                PreflightCheck unused = unusedBases(a);
                report("kvm: check after the first VM's delete: %s", unused.detail());
                assertThat(unused.passed()).isTrue();
                assertThat(unused.warning()).isTrue();
                // Other tests' unused bases may be listed too: the pool is the stack's.
                assertThat(unused.detail()).contains(firstBase, "egressctl images prune").doesNotContain(secondBase);
                b.delete(secondId, deadline());
            }
        }
    }

    @Test
    void aKvm2ImageWithoutDigestWhoseUrlChangedFetchesANewBaseAndTheOldStaysForItsVm() throws Exception {
        Path other = otherImage();
        try (Kvm2StackEntry entry = Kvm2StackEntry.create("identity", temporary)) {
            entry.images().serve("/first.qcow2", entry.stackImage()).serve(OTHER_PATH, Files.readAllBytes(other));
            String firstUrl = entry.images().url("/first.qcow2");
            String movedUrl = entry.images().url(OTHER_PATH);
            String firstVm = entry.instance("first");
            String movedVm = entry.instance("moved");

            Kvm2Provider before = entry.provider(entry.config().image("img", firstUrl));
            before.create(entry.request(firstVm, "img"), deadline());
            Kvm2Provider after = entry.provider(entry.config().image("img", movedUrl));
            String movedId = after.create(entry.request(movedVm, "img"), deadline());

            String firstBase = entry.baseVolume("img", firstUrl);
            String movedBase = entry.baseVolume("img", movedUrl);
            report("kvm2: before the URL changed %s, after it %s; volumes %s", firstBase, movedBase, entry.volumes());
            assertThat(poolFileSha256(movedBase)).as("sha256 of the new VM's base %s", movedBase)
                    .isEqualTo(KvmTestConfig.sha256(other));
            assertThat(poolFileSha256(firstBase)).as("sha256 of the old VM's base %s", firstBase)
                    .isEqualTo(KvmTestConfig.sha256(stack.qcow2Image()));
            assertThat(backingStore(entry.name(), movedVm)).contains(">" + poolPath(movedBase) + "<");
            assertThat(backingStore(entry.name(), firstVm)).contains(">" + poolPath(firstBase) + "<");
            assertThat(entry.images().gets(OTHER_PATH)).as("downloads of the new URL").isEqualTo(1);
            assertThat(entry.images().gets("/first.qcow2")).as("downloads of the old URL").isEqualTo(1);

            after.delete(movedId, deadline());
            PreflightCheck unused = unusedBases(after);
            assertThat(unused.detail()).as("the new base is unused now, the old one still backs the first VM")
                    .contains(movedBase, "egressctl images prune").doesNotContain(firstBase);
        }
    }

    private KvmProvider kvm(KvmTestConfig config) throws IOException {
        return ConfiguredProviders.providerFromYaml(config.yaml(), config.entry(), KvmProvider.class,
                new TestProviderContext(temporary));
    }

    private static Placement placement(String image) {
        return new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, image);
    }

    private static PreflightCheck unusedBases(dev.egressproxies.api.Provider provider) {
        return provider.preflight(deadline()).stream()
                .filter(check -> check.name().startsWith("unused base images in pool ")).findFirst().orElseThrow();
    }

    /** A qcow2 image other than the stack's (another size, so other bytes), named with the token. */
    private Path otherImage() throws IOException {
        Path file = temporary.resolve(token + "-other.qcow2");
        Commands.run(30, "qemu-img", "create", "-q", "-f", "qcow2", file.toString(), "3M");
        assertThat(KvmTestConfig.sha256(file)).isNotEqualTo(KvmTestConfig.sha256(stack.qcow2Image()));
        return file;
    }

    /** The sha256 of a volume's file, read from the pool's folder. */
    private String poolFileSha256(String volume) {
        return KvmTestConfig.sha256(stack.poolFolder().resolve(volume));
    }

    private String poolPath(String volume) {
        return stack.poolFolder().resolve(volume).toString();
    }

    /** The overlay's volume XML as libvirt describes it, backing store included. */
    private String backingStore(String entry, String instance) {
        String xml = Virsh.run("vol-dumpxml", "--pool", stack.pool(), InstanceVolumes.overlay(entry, instance));
        return xml.substring(xml.indexOf("<backingStore>"), xml.indexOf("</backingStore>"));
    }

    private static Deadline deadline() {
        return Deadline.after(CALL_TIMEOUT);
    }

    private static void report(String format, Object... arguments) {
        System.out.println("[image identity] " + String.format(format, arguments));
    }
}
