package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.kvm.KvmProvider;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@code kvm} backend against faults of the real stack: a host key that does not match, sshd
 * killed while a call is in flight, libvirtd frozen with SIGSTOP, and a key file that appears only
 * after the first attempt. Each fault gives the error kind the contract names for it, and the
 * next call after the fault is repaired dials again and succeeds. The timings are printed
 * ({@code [kvm fault] ...}).
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class KvmFaultTest {
    /** The deadline of calls into a frozen libvirtd. */
    private static final Duration FROZEN_CALL_DEADLINE = Duration.ofSeconds(2);
    /** How soon after its deadline a call must return, per the contract. */
    private static final Duration PROMPTLY = Duration.ofSeconds(1);
    /** The deadline of calls that should succeed. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    /** How long a test waits for a call that should end by itself before declaring it stuck. */
    private static final Duration STUCK_AFTER = Duration.ofSeconds(30);
    private static final String CLOUD_INIT = "#cloud-config\nhostname: fault\n";

    @TempDir
    Path temporary;

    private final TestStack stack = TestStack.load();
    private final List<KvmProvider> providers = new ArrayList<>();
    private final List<String> instancesToDelete = new ArrayList<>();
    private final List<String> volumesToDelete = new ArrayList<>();
    private boolean sshdKilled;

    @AfterEach
    void repairTheStackAndRemoveWhatTheTestMade() throws Exception {
        LibvirtdFreezer.thaw();
        if (sshdKilled) {
            StackSshd.revive();
        }
        providers.forEach(KvmProvider::close);
        try (KvmProvider cleaner = provider(KvmTestConfig.standard())) {
            for (String id : instancesToDelete) {
                cleaner.delete(id, Deadline.after(CALL_TIMEOUT));
            }
        }
        for (String volume : volumesToDelete) {
            if (Virsh.volumes(stack.pool(), volume).contains(volume)) {
                Virsh.run("vol-delete", "--pool", stack.pool(), volume);
            }
        }
    }

    @Test
    void wrongHostKeyIsRefusedAsPermanentAndNothingIsMade() throws Exception {
        KvmProvider kvm = provider(KvmTestConfig.standard()
                .knownHostsFile(Path.of(stack.value("EGRESS_TEST_WRONG_KNOWN_HOSTS"))));
        String name = uniqueName("hostkey");

        ProviderException create = failureOf(() -> kvm.create(request(name), Deadline.after(CALL_TIMEOUT)));
        ProviderException list = failureOf(() -> kvm.listManaged(Deadline.after(CALL_TIMEOUT)));

        report("create with a wrong host key: %s", create.getMessage());
        for (ProviderException error : List.of(create, list)) {
            assertThat(error.kind()).as("kind of: %s", error.getMessage()).isEqualTo(ErrorKind.PERMANENT);
            assertThat(error.getMessage()).as("the error names the file to fix").contains("known_hosts");
        }
        assertThat(create.operation()).isEqualTo(Operation.CREATE);
        assertThat(list.operation()).isEqualTo(Operation.LIST_MANAGED);
        assertThat(Virsh.domains(name)).as("domains made by the refused create").isEmpty();
        assertThat(NoKvmLeftovers.volumesNamedWith(stack.pool(), name)).as("volumes made by the refused create")
                .isEmpty();
    }

    @Test
    void sshdKilledDuringAnImageUploadIsTransientAndTheNextCallRedials() throws Exception {
        String imageKey = NoKvmLeftovers.FAULT_PREFIX + "slow";
        try (SlowImageServer images = SlowImageServer.serve(stack.qcow2Image())) {
            String baseVolume = KvmTestConfig.kvmBase(imageKey, images.url());
            volumesToDelete.add(baseVolume + ".complete");
            volumesToDelete.add(baseVolume);
            KvmProvider kvm = provider(KvmTestConfig.standard().image(imageKey, images.url()));
            kvm.listManaged(Deadline.after(CALL_TIMEOUT));
            String name = uniqueName("upload");
            CreateRequest request = new CreateRequest(name, "uid-" + name,
                    new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, imageKey), CLOUD_INIT);
            instancesToDelete.add(KvmTestConfig.HOST + "/" + name);
            images.expect(64 * 1024);

            CompletableFuture<Outcome<String>> create = inBackground(
                    () -> kvm.create(request, Deadline.after(CALL_TIMEOUT)));
            assertThat(images.awaitSent(STUCK_AFTER)).as("the image download started").isTrue();
            assertThat(Virsh.volumes(stack.pool(), baseVolume)).as("base volume being uploaded").contains(baseVolume);
            long sentAtKill = images.bytesSent();
            long killStarted = System.nanoTime();
            killSshd();
            long killEnded = System.nanoTime();
            Outcome<String> outcome = create.get(STUCK_AFTER.toSeconds(), TimeUnit.SECONDS);

            report("create during an image upload, sshd killed after %d of %d bytes: %s %s after kill-sshd"
                            + " started (%s after it finished): %s", sentAtKill, images.length(), outcome.describe(),
                    millis(outcome.endedAt() - killStarted), millis(outcome.endedAt() - killEnded),
                    outcome.failureMessage());
            assertThat(outcome.failure()).as("create while sshd was killed").isNotNull();
            assertThat(outcome.failure().kind()).as("kind of: %s", outcome.failureMessage())
                    .isEqualTo(ErrorKind.TRANSIENT);
            assertThat(outcome.startedAt()).as("the create was in flight when sshd was killed").isLessThan(killStarted);
            assertThat(Virsh.domains(name)).as("domain of the cut-off create").isEmpty();

            reviveSshd();
            Outcome<List<Instance>> list = timed(() -> kvm.listManaged(Deadline.after(CALL_TIMEOUT)));
            report("listManaged after sshd was started again: %s (redial)", list.describe());
            assertThat(list.failure()).as("listManaged after sshd came back").isNull();

            images.slow(false);
            Outcome<String> retried = timed(() -> kvm.create(request, Deadline.after(CALL_TIMEOUT)));
            report("create retried: %s", retried.describe());
            assertThat(retried.failure()).as("the retried create").isNull();
            Instance instance = kvm.get(retried.value(), Deadline.after(CALL_TIMEOUT));
            assertThat(instance.name()).isEqualTo(name);
            assertThat(Virsh.volumes(stack.pool(), baseVolume)).as("the base and its completeness marker")
                    .containsExactlyInAnyOrder(baseVolume, baseVolume + ".complete");
            kvm.delete(retried.value(), Deadline.after(CALL_TIMEOUT));
        }
    }

    @Test
    void sshdKilledDuringAListManagedLoopIsTransientAndTheNextCallRedials() throws Exception {
        String prefix = NoKvmLeftovers.FAULT_PREFIX + "list";
        int domains = 200;
        report("%s", Scripts.run(300, "define-many-domains.sh", Integer.toString(domains), prefix,
                KvmTestConfig.ENTRY).strip());
        try {
            KvmProvider kvm = provider(KvmTestConfig.standard());
            Outcome<List<Instance>> warm = timed(() -> kvm.listManaged(Deadline.after(CALL_TIMEOUT)));
            assertThat(warm.failure()).isNull();
            Outcome<List<Instance>> single = timed(() -> kvm.listManaged(Deadline.after(CALL_TIMEOUT)));
            report("listManaged of %d managed domains takes %s on a warm link", single.value().size(),
                    millis(single.endedAt() - single.startedAt()));

            List<Outcome<List<Instance>>> calls = new CopyOnWriteArrayList<>();
            AtomicBoolean stop = new AtomicBoolean();
            CompletableFuture<Void> loop = CompletableFuture.runAsync(() -> {
                while (!stop.get()) {
                    Outcome<List<Instance>> call = timed(() -> kvm.listManaged(Deadline.after(CALL_TIMEOUT)));
                    calls.add(call);
                    if (call.failure() != null) {
                        return;
                    }
                }
            });
            long waitUntil = System.nanoTime() + STUCK_AFTER.toNanos();
            while (calls.size() < 2 && System.nanoTime() < waitUntil) {
                Thread.sleep(10);
            }
            // Into the middle of the next call.
            Thread.sleep(single.endedAt() - single.startedAt() > 100_000_000 ? 50 : 0);
            long killStarted = System.nanoTime();
            killSshd();
            long killEnded = System.nanoTime();
            try {
                loop.get(STUCK_AFTER.toSeconds(), TimeUnit.SECONDS);
            } finally {
                stop.set(true);
            }

            Outcome<List<Instance>> failed = calls.get(calls.size() - 1);
            boolean inFlight = failed.startedAt() < killStarted;
            report("listManaged loop, sshd killed during call %d (%s when the kill started): %s, %s after kill-sshd"
                            + " started (%s after it finished): %s", calls.size(),
                    inFlight ? "in flight" : "not yet started", failed.describe(),
                    millis(failed.endedAt() - killStarted), millis(failed.endedAt() - killEnded),
                    failed.failureMessage());
            assertThat(failed.failure()).as("the call that failed").isNotNull();
            assertThat(failed.failure().kind()).as("kind of: %s", failed.failureMessage())
                    .isEqualTo(ErrorKind.TRANSIENT);
            assertThat(failed.failure().operation()).isEqualTo(Operation.LIST_MANAGED);

            reviveSshd();
            Outcome<List<Instance>> after = timed(() -> kvm.listManaged(Deadline.after(CALL_TIMEOUT)));
            report("listManaged after sshd was started again: %s (redial)", after.describe());
            assertThat(after.failure()).as("listManaged after sshd came back").isNull();
            assertThat(after.value()).filteredOn(instance -> instance.name().startsWith(prefix + "-"))
                    .hasSize(domains);
        } finally {
            report("%s", Scripts.run(300, "undefine-domains.sh", prefix).strip());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Operation.class, names = {"GET", "CREATE", "LIST_MANAGED"})
    void frozenLibvirtdGivesTransientWithinASecondOfTheDeadlineAndTheNextCallRedials(Operation operation)
            throws Exception {
        KvmProvider kvm = provider(KvmTestConfig.standard());
        String existing = create(kvm, uniqueName("frozen"));
        String newName = uniqueName("frozen-new");
        instancesToDelete.add(KvmTestConfig.HOST + "/" + newName);
        Outcome<?> outcome;

        LibvirtdFreezer.freeze();
        try {
            Deadline deadline = Deadline.after(FROZEN_CALL_DEADLINE);
            CompletableFuture<? extends Outcome<?>> call = switch (operation) {
                case GET -> inBackground(() -> kvm.get(existing, deadline));
                case CREATE -> inBackground(() -> kvm.create(request(newName), deadline));
                case LIST_MANAGED -> inBackground(() -> kvm.listManaged(deadline));
                default -> throw new IllegalArgumentException(operation.toString());
            };
            // The call runs on a thread of its own: a call that never returns fails the test
            // instead of hanging it, and libvirtd is thawed either way.
            outcome = call.get(STUCK_AFTER.toSeconds(), TimeUnit.SECONDS);
        } finally {
            LibvirtdFreezer.thaw();
        }

        Duration elapsed = Duration.ofNanos(outcome.endedAt() - outcome.startedAt());
        report("%s into a frozen libvirtd with a %s deadline: %s, %s after its deadline: %s", operation,
                millis(FROZEN_CALL_DEADLINE.toNanos()), outcome.describe(),
                millis(elapsed.minus(FROZEN_CALL_DEADLINE).toNanos()), outcome.failureMessage());
        assertThat(outcome.failure()).as("%s into a frozen libvirtd", operation).isNotNull();
        assertThat(outcome.failure().kind()).as("kind of: %s", outcome.failureMessage()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(outcome.failure().operation()).isEqualTo(operation);
        assertThat(elapsed).as("time %s took with a deadline of %s", operation, FROZEN_CALL_DEADLINE)
                .isLessThanOrEqualTo(FROZEN_CALL_DEADLINE.plus(PROMPTLY));

        Outcome<Instance> next = timed(() -> kvm.get(existing, Deadline.after(CALL_TIMEOUT)));
        report("get after SIGCONT: %s (redial)", next.describe());
        assertThat(next.failure()).as("get after libvirtd was thawed").isNull();
        assertThat(next.value().name()).isEqualTo(existing.substring(existing.indexOf('/') + 1));
        if (operation == Operation.CREATE) {
            String id = kvm.create(request(newName), Deadline.after(CALL_TIMEOUT));
            assertThat(kvm.get(id, Deadline.after(CALL_TIMEOUT)).name()).isEqualTo(newName);
        }
    }

    @Test
    void missingKeyFileIsTransientAndHealsWhenTheFileAppears() throws Exception {
        Path key = temporary.resolve("client_ed25519_mounted_later");
        KvmProvider kvm = provider(KvmTestConfig.standard().keyFile(key));

        ProviderException missing = failureOf(() -> kvm.listManaged(Deadline.after(CALL_TIMEOUT)));
        report("listManaged without the key file: %s", missing.getMessage());
        assertThat(missing.kind()).as("kind of: %s", missing.getMessage()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(missing.getMessage()).as("the error names the missing file").contains(key.toString());

        Files.copy(Path.of(stack.value("EGRESS_TEST_SSH_KEY")), key);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));

        Outcome<List<Instance>> healed = timed(() -> kvm.listManaged(Deadline.after(CALL_TIMEOUT)));
        report("listManaged once the key file appeared: %s", healed.describe());
        assertThat(healed.failure()).as("listManaged once the key file exists").isNull();
        String unknown = KvmTestConfig.HOST + "/" + uniqueName("never");
        assertThat(failureOf(() -> kvm.get(unknown, Deadline.after(CALL_TIMEOUT))).kind())
                .isEqualTo(ErrorKind.NOT_FOUND);
    }

    private KvmProvider provider(KvmTestConfig config) throws Exception {
        KvmProvider provider = ConfiguredProviders.providerFromYaml(config.yaml(), KvmTestConfig.ENTRY,
                KvmProvider.class, new TestProviderContext(temporary));
        providers.add(provider);
        return provider;
    }

    private String create(KvmProvider kvm, String name) {
        instancesToDelete.add(KvmTestConfig.HOST + "/" + name);
        return kvm.create(request(name), Deadline.after(CALL_TIMEOUT));
    }

    private void killSshd() {
        sshdKilled = true;
        StackSshd.kill();
    }

    private void reviveSshd() {
        StackSshd.revive();
        sshdKilled = false;
    }

    private static CreateRequest request(String name) {
        return new CreateRequest(name, "uid-" + name,
                new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, KvmTestConfig.IMAGE), CLOUD_INIT);
    }

    /** A fresh instance name under the fault tests' prefix. */
    private static String uniqueName(String purpose) {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return NoKvmLeftovers.FAULT_PREFIX + purpose + "-" + HexFormat.of().formatHex(random);
    }

    private static ProviderException failureOf(Callable<?> call) {
        Outcome<?> outcome = timed(call);
        if (outcome.failure() == null) {
            throw new AssertionError("the call returned " + outcome.value() + ", but should have failed");
        }
        return outcome.failure();
    }

    private static <T> CompletableFuture<Outcome<T>> inBackground(Callable<T> call) {
        CompletableFuture<Outcome<T>> future = new CompletableFuture<>();
        Thread thread = new Thread(() -> future.complete(timed(call)), "kvm fault call");
        thread.setDaemon(true);
        thread.start();
        return future;
    }

    /** Runs the call, recording when it started and ended and what it returned or threw. */
    private static <T> Outcome<T> timed(Callable<T> call) {
        long started = System.nanoTime();
        try {
            T value = call.call();
            return new Outcome<>(started, System.nanoTime(), value, null);
        } catch (ProviderException e) {
            return new Outcome<>(started, System.nanoTime(), null, e);
        } catch (Exception e) {
            throw new AssertionError("the call threw " + e + " instead of a ProviderException", e);
        }
    }

    private static String millis(long nanos) {
        return String.format("%.0f ms", nanos / 1e6);
    }

    private static void report(String format, Object... arguments) {
        System.out.println("[kvm fault] " + String.format(format, arguments));
    }

    /** A call's timing and result: a value, or the provider's error. */
    private record Outcome<T>(long startedAt, long endedAt, T value, ProviderException failure) {
        String describe() {
            String took = millis(endedAt - startedAt);
            return failure == null ? "succeeded in " + took : failure.kind() + " after " + took;
        }

        String failureMessage() {
            return failure == null ? "" : failure.getMessage();
        }
    }
}
