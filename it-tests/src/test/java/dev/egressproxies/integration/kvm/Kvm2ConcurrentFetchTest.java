package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes creating on one host from one uncached image at once, on the real stack: the
 * first ({@link Kvm2CreateMain} in a JVM of its own) takes the fetch lease and is held mid-upload
 * by an image server that sends the second half only when the test says; the second, in another JVM, must leave the first's partial base alone
 * and fail TRANSIENT naming the other process. Once the first finished, the second's retry reuses
 * the base: the image was downloaded once, and the base holds exactly the image (its sha256).
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2ConcurrentFetchTest {
    private static final String IMAGE_KEY = "img";
    private static final String IMAGE_PATH = "/concurrent.qcow2";
    /** Long enough for a JVM start, an SSH login and a create; reached only when something hangs. */
    private static final Duration STUCK_AFTER = Duration.ofMinutes(2);

    @TempDir
    Path temporary;

    private final TestStack stack = TestStack.load();
    private final String token = NoKvmLeftovers.CRASH_PREFIX + "fetch-"
            + HexFormat.of().formatHex(Kvm2CrashConsistencyTest.randomBytes());
    /** Named once the image server runs: the base's name carries its URL's tag. */
    private Kvm2CrashConsistencyTest.Names names;

    @AfterEach
    void removeWhatTheTestMade() {
        Kvm2CrashConsistencyTest.removeNamedWith(stack, token);
    }

    @Test
    void aSecondProcessLeavesTheFirstsUploadAloneAndItsRetryReusesTheBase() throws Exception {
        Path imageFile = temporary.resolve("concurrent.qcow2");
        Commands.run(30, "qemu-img", "create", "-q", "-f", "qcow2", "-o", "preallocation=full", imageFile.toString(),
                "3M");
        byte[] image = Files.readAllBytes(imageFile);
        String sha256 = KvmTestConfig.sha256(imageFile);
        String second = token + "-vm2";
        CountDownLatch release = new CountDownLatch(1);
        try (ImageServer server = new ImageServer()) {
            names = new Kvm2CrashConsistencyTest.Names(token, server.url(IMAGE_PATH));
            server.serveInTwoParts(IMAGE_PATH, image, image.length / 2, release);
            Path config = temporary.resolve("config.yaml");
            // The body pauses on purpose while other processes start; the idle limit must outlast that.
            Files.writeString(config, KvmTestConfig.kvm2().entry(names.entry()).catalogueImage(IMAGE_KEY,
                    "{url: " + KvmTestConfig.quoted(server.url(IMAGE_PATH)) + ", sha256: " + sha256
                            + ", firmware: bios}").setting("imageIdleTimeout", "3m").yaml());

            Optional<String> refused;
            try (ChildJvm first = ChildJvm.start(Kvm2CreateMain.class, temporary.resolve("first.log"),
                    Kvm2CreateMain.arguments(config, names.entry(), names.instance(), IMAGE_KEY))) {
                assertThat(awaitVolumes(names.base(), names.lease()))
                        .as("volumes during the first upload; %s", first.output())
                        .containsExactlyInAnyOrder(names.base(), names.lease());

                refused = createIn("second.log", config, second, "FAILED ");
                assertThat(refused).as("the second create while the first uploads").isPresent();
                assertThat(refused.get()).startsWith("FAILED TRANSIENT").contains("another process (process ")
                        .contains("is fetching image");
                assertThat(Virsh.volumes(stack.pool(), names.token())).as("volumes after the second create")
                        .containsExactlyInAnyOrder(names.base(), names.lease());

                release.countDown();
                assertThat(first.awaitLine(Kvm2CreateMain.CREATED, STUCK_AFTER)).as("the first create; %s",
                        first.output()).isPresent();
            }
            Optional<String> retried = createIn("retry.log", config, second, Kvm2CreateMain.CREATED);
            assertThat(retried).as("the second create's retry").isPresent();

            assertThat(server.gets(IMAGE_PATH)).as("downloads of the image").isEqualTo(1);
            Path base = temporary.resolve("base");
            Virsh.run("vol-download", "--pool", stack.pool(), names.base(), base.toString());
            assertThat(KvmTestConfig.sha256(base)).as("sha256 of the base volume").isEqualTo(sha256);
            assertThat(Virsh.volumes(stack.pool(), names.token())).as("volumes after both creates")
                    .contains(names.base(), names.marker()).doesNotContain(names.lease());
            System.out.println("[kvm2 concurrent fetch] second create while the first uploaded: " + refused.get()
                    .lines().findFirst().orElse("") + "; retried: " + retried.get());

            try (Kvm2Provider provider = ConfiguredProviders.providerFromYaml(Files.readString(config),
                    names.entry(), Kvm2Provider.class, new TestProviderContext(temporary))) {
                provider.delete(KvmTestConfig.HOST + "/" + names.instance(), Deadline.after(STUCK_AFTER));
                provider.delete(KvmTestConfig.HOST + "/" + second, Deadline.after(STUCK_AFTER));
            }
        } finally {
            release.countDown();
        }
    }

    /** The test's volumes once they include {@code expected}, or as they are after a while. */
    private List<String> awaitVolumes(String... expected) throws InterruptedException {
        long until = System.nanoTime() + STUCK_AFTER.toNanos();
        List<String> volumes = Virsh.volumes(stack.pool(), names.token());
        while (!volumes.containsAll(List.of(expected)) && System.nanoTime() < until) {
            Thread.sleep(100);
            volumes = Virsh.volumes(stack.pool(), names.token());
        }
        return volumes;
    }

    /** Runs a create of {@code name} in a JVM of its own; its first output line starting with {@code prefix}. */
    private Optional<String> createIn(String log, Path config, String name, String prefix) throws Exception {
        try (ChildJvm create = ChildJvm.start(Kvm2CreateMain.class, temporary.resolve(log),
                Kvm2CreateMain.arguments(config, names.entry(), name, IMAGE_KEY))) {
            Optional<String> line = create.awaitLine(prefix, STUCK_AFTER);
            create.awaitExit(STUCK_AFTER);
            return line;
        }
    }
}
