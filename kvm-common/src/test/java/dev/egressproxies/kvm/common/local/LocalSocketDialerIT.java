package dev.egressproxies.kvm.common.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.host.HostLink;
import dev.egressproxies.kvm.common.host.LibvirtHostLink;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.HostInfo;
import dev.egressproxies.kvm.common.teststack.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The host connection pool on the real local libvirtd through {@link LocalSocketDialer}: the same
 * path a call takes through an SSH tunnel, with the relay standing in for the tunnel.
 */
@Timeout(120)
class LocalSocketDialerIT {
    private static final TestStack STACK = TestStack.load();
    private static final HostSettings LOCAL = new HostSettings("local", "localhost", 22, "root",
            STACK.libvirtSocket().toString(), null, "br0", null, null, null, null, null);
    private static final Deadline GENEROUS = Deadline.after(Duration.ofSeconds(30));

    private final RecordingDialer dialer = new RecordingDialer(new LocalSocketDialer());
    private final HostPool connections = new HostPool(dialer, Duration.ofSeconds(3), Optional.empty());
    private Set<Path> relayFoldersBefore;

    @BeforeEach
    void noteRelayFolders() throws IOException {
        relayFoldersBefore = relayFolders();
    }

    /** Closes the pool and checks that every relay it opened is gone (the closes run in the background). */
    @AfterEach
    void closeConnectionsAndCheckNoRelayIsLeft() throws Exception {
        connections.close();
        Set<Path> left = Set.of();
        for (int attempt = 0; attempt < 50; attempt++) {
            left = new HashSet<>(relayFolders());
            left.removeAll(relayFoldersBefore);
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        assertThat(left).as("relay folders left behind").isEmpty();
    }

    private static Set<Path> relayFolders() throws IOException {
        try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return entries.filter(path -> path.getFileName().toString().startsWith("egress-libvirt-"))
                    .collect(Collectors.toSet());
        }
    }

    private static Call call(Deadline deadline) {
        return new Call("local-test", Operation.GET, "", deadline);
    }

    private HostInfo hostInfo(Deadline deadline) {
        return connections.call(LOCAL, call(deadline), libvirt -> libvirt.hostInfo());
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @Test
    void callsGoThroughOneCachedLinkToTheLocalDaemon() {
        assertThat(hostInfo(GENEROUS).hypervisor()).isEqualTo("QEMU");
        boolean poolFound = connections.call(LOCAL, call(GENEROUS), libvirt -> libvirt.lookupPool(STACK.pool()).isPresent());

        assertThat(poolFound).isTrue();

        assertThat(dialer.links()).hasSize(1);
        assertThat(dialer.links().get(0).isAlive()).isTrue();
    }

    @Test
    void aCutLinkIsNoticedAndRedialled() {
        hostInfo(GENEROUS);
        HostLink first = dialer.links().get(0);

        first.abort();

        assertThat(first.isAlive()).isFalse();
        assertThat(hostInfo(GENEROUS).hypervisor()).isEqualTo("QEMU");
        assertThat(dialer.links()).hasSize(2);
    }

    @Test
    void closingALinkRemovesItsPrivateSocket() throws Exception {
        UnixSocketRelay relay = UnixSocketRelay.start(STACK.libvirtSocket());
        Path socket = relay.socketPath();
        try {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())))
                    .isEqualTo("rwx------");
            HostLink link = LibvirtHostLink.open(LOCAL.endpoint(), relay, call(GENEROUS));
            assertThat(link.libvirt().hostInfo()).isNotNull();
            assertThat(relay.connectionCount()).isOne();

            link.close();
            assertThat(relay.isOpen()).as("closing the link closes its transport").isFalse();
        } finally {
            relay.close();
        }

        assertThat(socket).doesNotExist();
        assertThat(socket.getParent()).doesNotExist();
    }

    @Test
    void aMissingDaemonSocketIsUnreachableAndSaysWhatToStart() {
        HostSettings nowhere = new HostSettings("nowhere", "localhost", 22, "root", "/nonexistent/libvirt-sock", null,
                "br0", null, null, null, null, null);

        ProviderException failure = catchThrowableOfType(ProviderException.class,
                () -> connections.call(nowhere, call(GENEROUS), libvirt -> libvirt.hostInfo()));

        assertThat(failure.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(failure).hasMessageContaining("no libvirt socket at /nonexistent/libvirt-sock")
                .hasMessageContaining("start libvirtd");
    }

    @Test
    void aCallToAFrozenDaemonReturnsWithinASecondOfItsDeadlineAndTheNextCallRedials() throws Exception {
        hostInfo(GENEROUS);
        HostLink frozenLink = dialer.links().get(0);
        long started;
        ProviderException failure;

        FrozenDaemon frozen = FrozenDaemon.freeze(STACK.libvirtdPid());
        try {
            started = System.nanoTime();
            failure = catchThrowableOfType(ProviderException.class,
                    () -> connections.call(LOCAL, call(Deadline.after(Duration.ofSeconds(1))),
                            libvirt -> libvirt.listAllDomains()));
        } finally {
            frozen.thaw();
        }
        long elapsed = millisSince(started);

        System.out.printf("call to a SIGSTOPped libvirtd with a 1 s deadline returned after %d ms%n", elapsed);
        assertThat(failure.detail()).startsWith("deadline exceeded while waiting for host 'local'");
        assertThat(elapsed).isBetween(950L, 2000L);
        assertThat(frozenLink.isAlive()).isFalse();
        assertThat(hostInfo(GENEROUS).hypervisor()).isEqualTo("QEMU");
        assertThat(dialer.links()).hasSize(2);
    }

    @Test
    void whileACallIsStuckTheLinkAnswersIsAliveAtOnceAndAbortReleasesTheCall() throws Exception {
        HostLink link = new LocalSocketDialer().dial(LOCAL.endpoint(), call(GENEROUS));
        ExecutorService background = Executors.newSingleThreadExecutor();
        try {
            link.libvirt().hostInfo();
            Future<?> stuck;
            long aliveMillis;
            long releasedMillis;
            Throwable outcome;
            FrozenDaemon frozen = FrozenDaemon.freeze(STACK.libvirtdPid());
            try {
                stuck = background.submit(() -> link.libvirt().listAllDomains());
                Thread.sleep(300);
                assertThat(stuck.isDone()).as("the call waits for the frozen daemon").isFalse();

                long started = System.nanoTime();
                assertThat(link.isAlive()).isTrue();
                aliveMillis = millisSince(started);

                started = System.nanoTime();
                link.abort();
                outcome = catchThrowable(() -> stuck.get(5, TimeUnit.SECONDS));
                releasedMillis = millisSince(started);
            } finally {
                frozen.thaw();
            }
            System.out.printf("isAlive beside a stuck call took %d ms; abort released the call after %d ms%n",
                    aliveMillis, releasedMillis);
            assertThat(aliveMillis).isLessThan(100);
            assertThat(releasedMillis).isLessThan(500);
            assertThat(outcome).isInstanceOf(ExecutionException.class).cause().isInstanceOf(LibvirtException.class)
                    .matches(cause -> ((LibvirtException) cause).isTransportFailure(), "is a transport failure");
            assertThat(link.isAlive()).isFalse();
        } finally {
            link.close();
            background.shutdownNow();
        }
    }

    @Test
    void aDialToAFrozenDaemonHonoursTheCallersDeadlineAndGivesUpAtTheDialTimeout() throws Exception {
        long started;
        ProviderException failure;
        ProviderException dialOutcome;

        FrozenDaemon frozen = FrozenDaemon.freeze(STACK.libvirtdPid());
        try {
            started = System.nanoTime();
            failure = catchThrowableOfType(ProviderException.class, () -> hostInfo(Deadline.after(Duration.ofSeconds(1))));
            long callerElapsed = millisSince(started);
            System.out.printf("dial to a SIGSTOPped libvirtd: the caller with a 1 s deadline left after %d ms%n",
                    callerElapsed);
            assertThat(callerElapsed).isBetween(950L, 2000L);
            // The dial itself goes on for the next caller, until the pool's 3 s dial timeout cuts it.
            dialOutcome = catchThrowableOfType(ProviderException.class, () -> hostInfo(GENEROUS));
            System.out.printf("the dial itself gave up after %d ms%n", millisSince(started));
        } finally {
            frozen.thaw();
        }

        assertThat(failure.detail()).startsWith("deadline exceeded while waiting for host 'local'");
        assertThat(dialOutcome.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(dialOutcome.detail()).contains("could not be reached");
        assertThat(dialOutcome).hasMessageContaining("did not answer within the time allowed for connecting");
        assertThat(millisSince(started)).isLessThan(6000);
        assertThat(hostInfo(GENEROUS).hypervisor()).isEqualTo("QEMU");
    }
}
