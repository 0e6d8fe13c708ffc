package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm2.Kvm2Provider;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code kvm2} entry whose hosts sit behind a jump host, as the stack's network namespace puts
 * them: only the jump host's address is reachable from here, and the entry names the hosts by a
 * {@code Host} alias of an ssh_config whose {@code ProxyJump}, {@code IdentityFile} and
 * {@code UserKnownHostsFile} say everything else. {@code check} prints the effective values, the
 * conformance suite passes through the jump, and a jump host killed in the middle of an upload is
 * TRANSIENT, leaves nothing behind, and the next call dials again.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class ProxyJumpEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ALIAS = StackJumpHost.ALIAS;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    private final TestStack stack = TestStack.load();

    @TempDir
    Path temp;

    private Kvm2StackEntry entry;
    private Path sshConfig;

    @BeforeEach
    void configure() throws IOException {
        entry = Kvm2StackEntry.create("proxy-jump", temp.resolve("state"));
        sshConfig = StackJumpHost.sshConfig(stack, temp.resolve("ssh_config"));
    }

    @AfterEach
    void removeWhatTheEntryMade() {
        StackSshd.revive();
        entry.close();
    }

    private KvmTestConfig throughTheJump() {
        return entry.config().secondHost().throughSshConfig(sshConfig, ALIAS);
    }

    @Test
    void theHostsBehindTheJumpCannotBeReachedDirectly() {
        int port = Integer.parseInt(stack.value("EGRESS_TEST_BEHIND_JUMP_SSH_PORT"));
        for (String address : List.of(stack.value("EGRESS_TEST_BEHIND_JUMP_HOST"), stack.value("EGRESS_TEST_JUMP_HOST"))) {
            assertThat(catchThrowableOfType(ConnectException.class, () -> {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(address, port), 2000);
                }
            })).as("a direct connection to %s:%d", address, port).isNotNull();
        }
    }

    @Test
    void checkPrintsTheEffectiveValuesAndTheSuitePassesThroughTheJump() throws IOException {
        EgressctlProcess egressctl = entry.egressctl(throughTheJump(), temp);

        EgressctlProcess.Result check = egressctl.run("check", "-o", "json");
        assertThat(check.exitCode()).as(check.toString()).isZero();
        List<String> routes = List.copyOf(SshCheckDetails.of(check).values());
        String behind = stack.value("EGRESS_TEST_SSH_USER") + "@" + stack.value("EGRESS_TEST_BEHIND_JUMP_HOST") + ":"
                + stack.value("EGRESS_TEST_BEHIND_JUMP_SSH_PORT");
        String jump = stack.value("EGRESS_TEST_SSH_USER") + "@" + stack.value("EGRESS_TEST_JUMP_HOST") + ":"
                + stack.value("EGRESS_TEST_JUMP_SSH_PORT");
        assertThat(routes).hasSize(2).allSatisfy(route -> assertThat(route).contains(
                "SSH to " + behind + " (through " + jump + ")",
                "keys " + stack.value("EGRESS_TEST_SSH_KEY"),
                "known_hosts " + stack.value("EGRESS_TEST_KNOWN_HOSTS"),
                "direct-streamlocal"));

        EgressctlProcess.Result run = egressctl.run("conformance", entry.name(), "-o", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode document = JSON.readTree(run.out());
        assertThat(document.get("failed").asInt()).isZero();
        assertThat(document.get("passed").asInt()).isEqualTo(document.get("cases").size());
    }

    @Test
    void aJumpHostKilledDuringAnUploadIsTransientLeavesNothingAndTheNextCallRedials() throws Exception {
        String imageKey = "slow";
        try (SlowImageServer images = SlowImageServer.serve(stack.qcow2Image())) {
            Kvm2Provider kvm2 = entry.provider(throughTheJump().image(imageKey, images.url()));
            kvm2.listManaged(Deadline.after(CALL_TIMEOUT));
            String name = entry.instance("upload");
            images.expect(64 * 1024);

            CompletableFuture<Object> create = CompletableFuture.supplyAsync(() -> {
                try {
                    return kvm2.create(entry.request(name, imageKey), Deadline.after(CALL_TIMEOUT));
                } catch (ProviderException failure) {
                    return failure;
                }
            });
            assertThat(images.awaitSent(Duration.ofSeconds(30))).as("the image upload started").isTrue();
            StackSshd.killJumpHost();
            Object outcome = create.get(60, TimeUnit.SECONDS);

            assertThat(outcome).as("create while the jump host was killed").isInstanceOf(ProviderException.class);
            ProviderException failure = (ProviderException) outcome;
            assertThat(failure.kind()).as("kind of: %s", failure.getMessage()).isEqualTo(ErrorKind.TRANSIENT);
            assertThat(entry.domains()).as("domains after the cut-off create").isEmpty();

            StackSshd.revive();
            images.slow(false);
            assertThat(kvm2.listManaged(Deadline.after(CALL_TIMEOUT))).isEmpty();
            assertThat(kvm2.create(entry.request(name, imageKey), Deadline.after(CALL_TIMEOUT))).isNotBlank();
            assertThat(kvm2.listManaged(Deadline.after(CALL_TIMEOUT))).hasSize(1);
        }
    }

    @Test
    void twoJumpHostsArePassedInTheOrderWritten() throws Exception {
        // The stack's first sshd reaches the jump host over the veth pair; the reverse order cannot
        // work, as nothing listens on that sshd's port inside the namespace.
        String first = stack.value("EGRESS_TEST_SSH_USER") + "@" + stack.value("EGRESS_TEST_SSH_HOST") + ":"
                + stack.value("EGRESS_TEST_SSH_PORT");
        Files.writeString(sshConfig, Files.readString(sshConfig).replace("  ProxyJump egress-jump-host",
                "  ProxyJump " + first + ",egress-jump-host"));
        Kvm2Provider kvm2 = entry.provider(throughTheJump());

        assertThat(kvm2.listManaged(Deadline.after(CALL_TIMEOUT))).isEmpty();
    }

    /**
     * Not a test of speed: prints how long a first {@code egressctl list} takes through the jump
     * next to a direct one to the same libvirtd, each a fresh process, alternated, medians of five.
     */
    @Test
    void aFirstListThroughTheJumpNextToADirectOne() {
        EgressctlProcess jumped = entry.egressctl(entry.config().throughSshConfig(sshConfig, ALIAS), temp.resolve("jump"));
        EgressctlProcess direct = entry.egressctl(entry.config(), temp.resolve("direct"));
        List<Long> throughJump = new ArrayList<>();
        List<Long> directly = new ArrayList<>();
        for (int run = 0; run < 5; run++) {
            throughJump.add(listMillis(jumped));
            directly.add(listMillis(direct));
        }
        long jumpMedian = median(throughJump);
        long directMedian = median(directly);
        System.out.printf("[proxy-jump] first egressctl list, whole process, median of 5: through one jump %d ms,"
                + " direct %d ms (%.2fx); runs %s and %s%n", jumpMedian, directMedian,
                (double) jumpMedian / directMedian, throughJump, directly);
    }

    private static long listMillis(EgressctlProcess egressctl) {
        long started = System.nanoTime();
        EgressctlProcess.Result list = egressctl.run("list");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(list.exitCode()).as(list.toString()).isZero();
        return millis;
    }

    private static long median(List<Long> values) {
        return values.stream().sorted().toList().get(values.size() / 2);
    }
}
