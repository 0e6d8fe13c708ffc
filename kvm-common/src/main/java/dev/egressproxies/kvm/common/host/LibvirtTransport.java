package dev.egressproxies.kvm.common.host;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A local unix socket that reaches one host's libvirt daemon, through which {@link LibvirtHostLink}
 * connects libvirt-java: the local end of an SSH tunnel, or a relay to a socket on this machine.
 */
public interface LibvirtTransport extends AutoCloseable {

    /** The local socket libvirt connects to. */
    Path socketPath();

    /** How the socket reaches the daemon, for {@code check}: "SSH to root@kvm1:22, direct-streamlocal to ...". */
    String route();

    /** The user the daemon sees this transport's connections as, for messages about its access. */
    String login();

    /** Whether the transport is still open (not closed, and its far side not known to be gone). */
    boolean isOpen();

    /**
     * Why the transport ended on its own, as a sentence naming what carries it (such as the SSH
     * connection and its server), so a failure through it blames the right party.
     */
    default Optional<String> lossReason() {
        return Optional.empty();
    }

    /** Runs commands on the host itself, when the transport is an SSH session; empty otherwise. */
    default Optional<HostShell> shell() {
        return Optional.empty();
    }

    /**
     * Closes the socket and every connection through it. Callable from any thread, any number of
     * times; never blocks for long.
     */
    @Override
    void close();
}
