package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.testing.ImageServer;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fetch: host} on the real stack, in separate processes: the hypervisor downloads the image
 * itself through an exec channel of the SSH connection, through the jump host (from the jump
 * namespace's address, which proves where the download ran) and through the sshd that forwards no
 * unix sockets; a wrong sha256 leaves nothing in the pool; a create killed with SIGKILL during the
 * host's download ends that download there and the next create converges; and {@code check} names a
 * host without curl (the stack's sshd #4 runs commands with a PATH without curl and wget).
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2HostFetchEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "far";
    private static final String PATH = "/far.qcow2";
    private static final String ALIAS = StackJumpHost.ALIAS;
    private static final Duration STUCK_AFTER = Duration.ofMinutes(2);

    private final TestStack stack = TestStack.load();

    @TempDir
    Path temp;

    private Kvm2StackEntry entry;
    private final List<ImageServer> servers = new ArrayList<>();

    @BeforeEach
    void createEntry() {
        entry = Kvm2StackEntry.create("host-fetch", temp.resolve("state"));
    }

    @AfterEach
    void removeWhatTheEntryMade() {
        servers.forEach(ImageServer::close);
        entry.close();
    }

    @Test
    void throughTheJumpHostTheHypervisorDownloadsTheImageItself() throws IOException {
        ImageServer server = server(InetAddress.getByName(stack.value("EGRESS_TEST_JUMP_LOCAL_ADDRESS")));
        byte[] image = entry.stackImage();
        server.serve(PATH, image);
        Path sshConfig = StackJumpHost.sshConfig(stack, temp.resolve("ssh_config"));
        KvmTestConfig config = hostFetched(entry.config().throughSshConfig(sshConfig, ALIAS), server, image);
        EgressctlProcess egressctl = entry.egressctl(config, temp);

        EgressctlProcess.Result check = egressctl.run("check", "-o", "json");
        assertThat(check.exitCode()).as(check.toString()).isZero();
        assertThat(checkNamed(check, "tools for fetch: host on host " + KvmTestConfig.HOST).get("detail").asText())
                .contains("curl", "sha256sum", "pool folder " + stack.poolFolder() + " writable");
        assertThat(checkNamed(check, "image " + KEY + " at " + redacted(server) + " from host " + KvmTestConfig.HOST)
                .get("detail").asText()).isEqualTo("reachable from the host, " + image.length
                + " bytes as published");

        createAndCheck(egressctl, server, "jump", image);
        // The GET came from the far end of the jump namespace's veth: the hypervisor, not this process.
        assertThat(server.getClients()).containsExactly(stack.value("EGRESS_TEST_JUMP_HOST"));
    }

    @Test
    void throughTheSshdThatForwardsNoSocketsTheHypervisorDownloadsTheImageItself() throws IOException {
        ImageServer server = server(InetAddress.getLoopbackAddress());
        byte[] image = entry.stackImage();
        server.serve(PATH, image);
        KvmTestConfig config = hostFetched(entry.config()
                .hostSetting("port", stack.value("EGRESS_TEST_NO_STREAMLOCAL_SSH_PORT")), server, image);

        createAndCheck(entry.egressctl(config, temp), server, "no-streamlocal", image);
    }

    @Test
    void aWrongSha256OnTheHostLeavesNothing() throws IOException {
        ImageServer server = server(InetAddress.getLoopbackAddress());
        server.serve(PATH, entry.stackImage());
        String wrong = "0123456789abcdef".repeat(4);
        KvmTestConfig config = entry.config().catalogueImage(KEY, "{url: " + KvmTestConfig.quoted(server.url(PATH))
                + ", sha256: \"" + wrong + "\", firmware: bios, fetch: host}");

        EgressctlProcess.Result created = entry.egressctl(config, temp).run("create", entry.instance("wrong"),
                "--machine-type", KvmTestConfig.MACHINE_TYPE, "--image", KEY);

        System.out.println("[host fetch] wrong sha256 -> exit " + created.exitCode() + ": " + created.err().strip());
        assertThat(created.exitCode()).as(created.toString()).isEqualTo(2);
        assertThat(created.err()).contains("image '" + KEY + "': on host '" + KvmTestConfig.HOST + "': the image from "
                + redacted(server) + " has sha256 " + KvmTestConfig.sha256(stack.qcow2Image()),
                "not the configured " + wrong);
        assertThat(entry.volumes()).as("volumes of the entry after the refused fetch").isEmpty();
        assertThat(entry.domains()).isEmpty();
    }

    @Test
    void aCreateKilledDuringTheHostsDownloadEndsItThereAndTheNextCreateConverges() throws Exception {
        Path imageFile = temp.resolve("killed.qcow2");
        Commands.run(30, "qemu-img", "create", "-q", "-f", "qcow2", "-o", "preallocation=full", imageFile.toString(),
                "3M");
        byte[] image = Files.readAllBytes(imageFile);
        ImageServer server = server(InetAddress.getLoopbackAddress());
        CountDownLatch stalled = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        server.serveStalled(PATH, image, image.length / 2, stalled, release);
        // The body stalls until the kill; the idle limit (curl's --speed-time there) must outlast that.
        Path config = Files.writeString(temp.resolve("config.yaml"), hostFetched(entry.config(), server, image)
                .setting("imageIdleTimeout", "3m").yaml());
        String instance = entry.instance("killed");
        String base = entry.baseVolume(KEY, server.url(PATH));
        try {
            try (ChildJvm create = ChildJvm.start(Kvm2CreateMain.class, temp.resolve("killed.log"),
                    Kvm2CreateMain.arguments(config, entry.name(), instance, KEY))) {
                assertThat(stalled.await(STUCK_AFTER.toSeconds(), TimeUnit.SECONDS))
                        .as("the image server sent half the image; %s", create.output()).isTrue();
                assertThat(hostDownloads()).as("the download running on the host").isNotEmpty();
                assertThat(entry.volumes()).as("volumes at the kill").containsExactlyInAnyOrder(base, base + ".lease");
                assertThat(create.kill()).isEqualTo(ChildJvm.KILLED_BY_SIGKILL);
            }
            // sshd closes the channel with the connection; the script's reader of stdin then ends its group.
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!hostDownloads().isEmpty() && System.nanoTime() < until) {
                Thread.sleep(200);
            }
            assertThat(hostDownloads()).as("downloads left running on the host after the kill").isEmpty();
        } finally {
            release.countDown();
        }
        server.serve(PATH, image);

        try (ChildJvm create = ChildJvm.start(Kvm2CreateMain.class, temp.resolve("again.log"),
                Kvm2CreateMain.arguments(config, entry.name(), instance, KEY))) {
            Optional<String> created = create.awaitLine(Kvm2CreateMain.CREATED, STUCK_AFTER);
            assertThat(created).as("the create after the kill; %s", create.output()).isPresent();
            assertThat(create.awaitExit(STUCK_AFTER)).contains(0);
        }
        assertThat(entry.volumes()).containsExactlyInAnyOrder(base, base + ".sha256",
                InstanceVolumes.overlay(entry.name(), instance), InstanceVolumes.seed(entry.name(), instance));
        assertThat(entry.domains()).containsExactly(instance);
    }

    @Test
    void checkNamesAHostWithoutCurl() throws IOException {
        ImageServer server = server(InetAddress.getLoopbackAddress());
        byte[] image = entry.stackImage();
        server.serve(PATH, image);
        // The entry's own fetch: host makes every image host-fetched, the catalogue's default one too.
        KvmTestConfig config = hostFetched(entry.config(), server, image).setting("fetch", "host")
                .hostSetting("port", stack.value("EGRESS_TEST_NO_CURL_SSH_PORT"));

        EgressctlProcess.Result check = entry.egressctl(config, temp).run("check", "-o", "json");

        System.out.println("[host fetch] check without curl -> exit " + check.exitCode() + ": " + check.out().strip());
        assertThat(check.exitCode()).as(check.toString()).isEqualTo(1);
        JsonNode tools = checkNamed(check, "tools for fetch: host on host " + KvmTestConfig.HOST);
        assertThat(tools.get("passed").asBoolean()).isFalse();
        assertThat(tools.get("detail").asText()).contains("host '" + KvmTestConfig.HOST + "'", "lacks curl (or wget)",
                "install", "or set fetch: client");
        assertThat(server.gets(PATH)).isZero();
    }

    /** The entry with the catalogue image {@value #KEY} served by {@code server}, pinned, fetched on the host. */
    private KvmTestConfig hostFetched(KvmTestConfig config, ImageServer server, byte[] image) {
        return config.catalogueImage(KEY, "{url: " + KvmTestConfig.quoted(server.url(PATH)) + ", sha256: \""
                + sha256(image) + "\", firmware: bios, fetch: host}");
    }

    private void createAndCheck(EgressctlProcess egressctl, ImageServer server, String purpose, byte[] image) {
        String instance = entry.instance(purpose);
        EgressctlProcess.Result created = egressctl.run("create", instance, "--machine-type",
                KvmTestConfig.MACHINE_TYPE, "--image", KEY);
        assertThat(created.exitCode()).as(created.toString()).isZero();
        String base = entry.baseVolume(KEY, server.url(PATH));
        assertThat(entry.volumes()).containsExactlyInAnyOrder(base, base + ".sha256",
                InstanceVolumes.overlay(entry.name(), instance), InstanceVolumes.seed(entry.name(), instance));
        assertThat(server.gets(PATH)).as("GETs of the image").isEqualTo(1);
        try {
            assertThat(Files.readAllBytes(stack.poolFolder().resolve(base))).as("the base volume's file")
                    .isEqualTo(image);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        EgressctlProcess.Result deleted = egressctl.run("delete",
                entry.name() + "/" + KvmTestConfig.HOST + "/" + instance);
        assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
    }

    private ImageServer server(InetAddress address) throws IOException {
        ImageServer server = new ImageServer(address);
        servers.add(server);
        return server;
    }

    private static String redacted(ImageServer server) {
        return server.url("");
    }

    private static JsonNode checkNamed(EgressctlProcess.Result check, String name) throws IOException {
        for (JsonNode node : JSON.readTree(check.out()).get("checks")) {
            if (node.get("check").asText().equals(name)) {
                return node;
            }
        }
        throw new AssertionError("no check named '" + name + "' in " + check.out());
    }

    /** The host-side download scripts running on this machine (the stack's hosts are local). */
    private static List<String> hostDownloads() {
        return Commands.run(10, "ps", "-eo", "pid,args").lines()
                .filter(line -> line.contains("egress-fetch.") && line.contains("curl")).toList();
    }

    private static String sha256(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(bytes));
        } catch (java.security.NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
