package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Crash consistency of the {@code kvm2} backend on the real stack: a JVM running a create is
 * killed with SIGKILL at a {@link Point} (mid-upload, after the upload before the marker, ...),
 * then a fresh JVM creates the same instance again. That create must succeed and leave exactly one
 * running domain, the base and its marker holding the image's sha256, the instance's overlay and
 * seed, and no other volume; a delete then leaves only the cached base and marker. A kill during
 * the fetch leaves the fetch lease behind; its holder, on this machine, is gone, so the next create
 * takes it over at once rather than waiting for its expiry, or, when the kill came after the marker,
 * finds the base complete and removes the lease.
 *
 * <p>Before each kill the test checks that the pool holds what the point implies, so a point the
 * create never reached cannot pass unnoticed. Both JVMs run {@link Kvm2CreateMain}; the first stops
 * for good right before one libvirt call ({@link StopBeforeCall}), or, for the mid-upload point, in
 * the upload of an image this test's HTTP server stalls halfway. What each point found and how the
 * recovery went is printed ({@code [kvm2 crash] ...}).
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2CrashConsistencyTest {
    private static final String IMAGE_KEY = "img";
    private static final String IMAGE_PATH = "/crash.qcow2";
    /** Long enough for a JVM start, an SSH login and a create; reached only when something hangs. */
    private static final Duration STUCK_AFTER = Duration.ofMinutes(2);
    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(1);

    /** Where a create is killed: right before a libvirt call, or while its image is half uploaded. */
    enum Point {
        /** The image's upload, half of it sent, the rest withheld by the HTTP server. */
        MID_UPLOAD(null, null, false, true, names -> Set.of(names.base(), names.lease())),
        /** The upload done and the pool refreshed; the marker not yet created. */
        AFTER_UPLOAD_BEFORE_MARKER("createVolume", Names::marker, false, true,
                names -> Set.of(names.base(), names.lease())),
        /** The marker volume created, its digest not yet written. */
        MARKER_WITHOUT_DIGEST("uploadVolume", Names::marker, false, true,
                names -> Set.of(names.base(), names.marker(), names.lease())),
        /**
         * The marker written, the fetch lease not yet removed: the base is complete, and the next
         * create, finding it so, removes the lease its holder left.
         */
        AFTER_MARKER_BEFORE_LEASE_RELEASE("deleteVolume", Names::lease, false, false,
                names -> Set.of(names.base(), names.marker(), names.lease())),
        /** The overlay created; the seed not yet. */
        AFTER_OVERLAY("createVolume", Names::seed, false, false,
                names -> Set.of(names.base(), names.marker(), names.overlay())),
        /** The seed volume created, its ISO not yet uploaded. */
        SEED_WITHOUT_CONTENT("uploadVolume", Names::seed, false, false,
                names -> Set.of(names.base(), names.marker(), names.overlay(), names.seed())),
        /** The domain defined; not yet started. */
        AFTER_DEFINE("startDomain", Names::instance, true, false,
                names -> Set.of(names.base(), names.marker(), names.overlay(), names.seed()));

        private final String method;
        private final Function<Names, String> subject;
        private final boolean domainDefined;
        private final boolean refetched;
        private final Function<Names, Set<String>> volumes;

        /**
         * @param method        the libvirt call to stop before; none for the stalled upload
         * @param subject       the domain or volume that call acts on
         * @param domainDefined whether the domain is defined at the kill
         * @param refetched     whether the next create must fetch the image again: the base is
         *                      not known complete without a marker holding its digest
         * @param volumes       the volumes of the test in the pool at the kill
         */
        Point(String method, Function<Names, String> subject, boolean domainDefined, boolean refetched,
              Function<Names, Set<String>> volumes) {
            this.method = method;
            this.subject = subject;
            this.domainDefined = domainDefined;
            this.refetched = refetched;
            this.volumes = volumes;
        }

        String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * What one test names: the entry, its base and marker (after the image's URL, whose port is the
     * test's server's), the instance and its volumes; all start with the token.
     */
    record Names(String token, String imageUrl) {
        String entry() {
            return token + "-entry";
        }

        String instance() {
            return token + "-vm";
        }

        String base() {
            return KvmTestConfig.kvm2Base(entry(), IMAGE_KEY, imageUrl);
        }

        String marker() {
            return base() + ".sha256";
        }

        /** The fetch lease the killed JVM held while it fetched; the next create takes it over at once. */
        String lease() {
            return base() + ".lease";
        }

        String overlay() {
            return InstanceVolumes.overlay(entry(), instance());
        }

        String seed() {
            return InstanceVolumes.seed(entry(), instance());
        }
    }

    @TempDir
    Path temporary;

    private final TestStack stack = TestStack.load();
    private final String token = NoKvmLeftovers.CRASH_PREFIX + HexFormat.of().formatHex(randomBytes());
    /** Named once the image server runs. */
    private Names names;

    @AfterEach
    void removeWhatTheTestMade() {
        removeNamedWith(stack, token);
    }

    /** Removes every domain and volume whose name starts with {@code token}. */
    static void removeNamedWith(TestStack stack, String token) {
        for (String domain : Virsh.domains(token)) {
            if (Virsh.run("domstate", domain).strip().equals("running")) {
                Virsh.run("destroy", domain);
            }
            Virsh.run("undefine", domain, "--managed-save", "--snapshots-metadata", "--nvram");
        }
        for (String volume : Virsh.volumes(stack.pool(), token)) {
            Virsh.run("vol-delete", "--pool", stack.pool(), volume);
        }
    }

    @ParameterizedTest(name = "killed at {0}")
    @EnumSource(Point.class)
    void aCreateKilledAtThisPointIsRepairedByTheNextCreate(Point point) throws Exception {
        Path imageFile = crashImage();
        byte[] image = Files.readAllBytes(imageFile);
        String sha256 = KvmTestConfig.sha256(imageFile);
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (ImageServer server = new ImageServer()) {
            if (point == Point.MID_UPLOAD) {
                server.serveStalled(IMAGE_PATH, image, image.length / 2, stalled, release);
            } else {
                server.serve(IMAGE_PATH, image);
            }
            names = new Names(token, server.url(IMAGE_PATH));
            Path config = temporary.resolve("config.yaml");
            // The body stalls on purpose until the create is killed; the idle limit must outlast that.
            Files.writeString(config, KvmTestConfig.kvm2().entry(names.entry()).catalogueImage(IMAGE_KEY,
                    "{url: " + KvmTestConfig.quoted(server.url(IMAGE_PATH)) + ", sha256: " + sha256
                            + ", firmware: bios}").setting("imageIdleTimeout", "3m").yaml());

            String atKill = killAt(point, config, stalled, image.length);

            if (point == Point.MID_UPLOAD) {
                server.serve(IMAGE_PATH, image);
                release.countDown();
            }
            String id = createAgain(config);

            assertThat(Virsh.domains(names.token())).as("domains after the second create")
                    .containsExactly(names.instance());
            assertThat(Virsh.run("domstate", names.instance()).strip()).as("state of %s", names.instance())
                    .isEqualTo("running");
            assertThat(volumes()).as("volumes after the second create")
                    .containsExactlyInAnyOrder(names.base(), names.marker(), names.overlay(), names.seed());
            assertThat(poolFiles()).as("files in the pool's folder after the second create")
                    .containsExactlyInAnyOrder(names.base(), names.marker(), names.overlay(), names.seed());
            assertThat(volumes()).as("the fetch lease after the second create").doesNotContain(names.lease());
            assertThat(markerDigest()).as("the marker's digest").isEqualTo(sha256);
            assertThat(KvmTestConfig.sha256(download(names.base()))).as("sha256 of the base volume's file")
                    .isEqualTo(sha256);
            assertThat(server.gets(IMAGE_PATH)).as("downloads of the image: the next create %s",
                            point.refetched ? "fetches it again" : "reuses the complete base")
                    .isEqualTo(point.refetched ? 2 : 1);
            report("%s: at the kill %s; the next create made %s (%s): one running domain, volumes %s", point.label(),
                    atKill, id, point.refetched ? "image fetched again" : "base reused", volumes());

            try (Kvm2Provider provider = ConfiguredProviders.providerFromYaml(Files.readString(config),
                    names.entry(), Kvm2Provider.class, new TestProviderContext(temporary))) {
                provider.delete(id, Deadline.after(CALL_TIMEOUT));
            }
            assertThat(Virsh.domains(names.token())).as("domains after the delete").isEmpty();
            assertThat(volumes()).as("volumes after the delete: the cached base and its marker")
                    .containsExactlyInAnyOrder(names.base(), names.marker());
        } finally {
            release.countDown();
        }
    }

    /**
     * A qcow2 image of a few MiB, all allocated: larger than the 1 MiB chunks the upload writes, so
     * the half the stalling server sends puts data into the base volume.
     */
    private Path crashImage() {
        Path file = temporary.resolve("crash.qcow2");
        Commands.run(30, "qemu-img", "create", "-q", "-f", "qcow2", "-o", "preallocation=full", file.toString(),
                "3M");
        return file;
    }

    /** Runs a create in a JVM of its own, kills it at {@code point}, and returns what the pool held then. */
    private String killAt(Point point, Path config, CountDownLatch stalled, long imageLength) throws Exception {
        String[] arguments = point.method == null
                ? Kvm2CreateMain.arguments(config, names.entry(), names.instance(), IMAGE_KEY)
                : Kvm2CreateMain.arguments(config, names.entry(), names.instance(), IMAGE_KEY, point.method,
                        point.subject.apply(names), point.label());
        try (ChildJvm create = ChildJvm.start(Kvm2CreateMain.class, temporary.resolve("killed.log"), arguments)) {
            String detail = "";
            if (point == Point.MID_UPLOAD) {
                assertThat(stalled.await(STUCK_AFTER.toSeconds(), TimeUnit.SECONDS))
                        .as("the image server sent half the image; %s", create.output()).isTrue();
                long allocated = awaitAllocation(names.base());
                assertThat(allocated).as("bytes of the base volume written when the create is killed")
                        .isPositive().isLessThan(imageLength);
                detail = ", " + allocated + " of " + imageLength + " bytes of the base written";
            } else {
                assertThat(create.awaitLine(StopBeforeCall.ANNOUNCEMENT + point.label(), STUCK_AFTER))
                        .as("the create reached %s; %s", point.label(), create.output()).isPresent();
            }
            assertThat(create.isAlive()).as("the create still runs at %s", point.label()).isTrue();
            assertThat(volumes()).as("volumes at %s", point.label())
                    .containsExactlyInAnyOrderElementsOf(point.volumes.apply(names));
            assertThat(Virsh.domains(names.token())).as("domains at %s", point.label())
                    .isEqualTo(point.domainDefined ? List.of(names.instance()) : List.of());
            if (point.domainDefined) {
                assertThat(Virsh.run("domstate", names.instance()).strip()).isEqualTo("shut off");
            }
            if (point == Point.AFTER_UPLOAD_BEFORE_MARKER) {
                detail = ", the base complete (sha256 " + KvmTestConfig.sha256(download(names.base())) + ")";
            }
            if (point == Point.AFTER_MARKER_BEFORE_LEASE_RELEASE) {
                detail = ", the marker holding " + markerDigest();
            }
            if (point == Point.MARKER_WITHOUT_DIGEST) {
                detail = ", the marker holding '" + markerDigest() + "'";
            }
            String found = "volumes " + volumes() + ", domains " + Virsh.domains(names.token()) + detail;

            assertThat(create.kill()).as("exit status of the killed create").isEqualTo(ChildJvm.KILLED_BY_SIGKILL);
            return found;
        }
    }

    /** Creates the instance again in a fresh JVM, without a crash point; returns the provider ID. */
    private String createAgain(Path config) throws Exception {
        try (ChildJvm create = ChildJvm.start(Kvm2CreateMain.class, temporary.resolve("again.log"),
                Kvm2CreateMain.arguments(config, names.entry(), names.instance(), IMAGE_KEY))) {
            Optional<String> created = create.awaitLine(Kvm2CreateMain.CREATED, STUCK_AFTER);
            assertThat(created).as("the second create; %s", create.output()).isPresent();
            assertThat(create.awaitExit(STUCK_AFTER)).as("exit of the second create").contains(0);
            return created.get().substring(Kvm2CreateMain.CREATED.length());
        }
    }

    /** The bytes written to {@code volume} so far, once it exists and holds any; fails after a while. */
    private long awaitAllocation(String volume) throws InterruptedException {
        long until = System.nanoTime() + STUCK_AFTER.toNanos();
        while (System.nanoTime() < until) {
            if (volumes().contains(volume)) {
                long allocated = allocation(volume);
                if (allocated > 0) {
                    return allocated;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError(volume + " held no data " + STUCK_AFTER + " after the image server sent half");
    }

    private long allocation(String volume) {
        return Virsh.run("vol-info", "--pool", stack.pool(), "--bytes", volume).lines()
                .filter(line -> line.startsWith("Allocation:"))
                .map(line -> Long.parseLong(line.replaceAll("[^0-9]", "")))
                .findFirst().orElseThrow();
    }

    /** The volumes of this test, by name. */
    private List<String> volumes() {
        return Virsh.volumes(stack.pool(), names.token());
    }

    /** The files of this test in the pool's folder, including any libvirt does not list as volumes. */
    private List<String> poolFiles() throws IOException {
        try (Stream<Path> files = Files.list(stack.poolFolder())) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.startsWith(names.token()))
                    .toList();
        }
    }

    /** The marker's digest: its first line, without the padding of a marker never written. */
    private String markerDigest() throws IOException {
        return new String(Files.readAllBytes(download(names.marker())), StandardCharsets.US_ASCII)
                .replaceAll("[\\x00\\s]+$", "").split("\n")[0];
    }

    private Path download(String volume) {
        Path file = temporary.resolve("download-" + volume);
        Virsh.run("vol-download", "--pool", stack.pool(), volume, file.toString());
        return file;
    }

    static byte[] randomBytes() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return random;
    }

    private static void report(String format, Object... arguments) {
        System.out.println("[kvm2 crash] " + String.format(format, arguments));
    }
}
