package dev.egressproxies.kvm.common.instance;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.config.HostSettings;
import dev.egressproxies.kvm.common.host.HostCallException;
import dev.egressproxies.kvm.common.libvirt.LibvirtException;

/**
 * The translation of what a host call threw into the contract's {@link ProviderException}, with a
 * kind that says whether to retry and a detail that says what to do.
 *
 * <ul>
 *   <li>A {@link ProviderException} (a verdict of the provider's own steps) passes unchanged.
 *   <li>{@link HostCallException}: an unreachable host is TRANSIENT; a connection that cannot work
 *       as configured (bad key, host key mismatch) PERMANENT; a passed deadline or an interrupt
 *       the contract's TRANSIENT errors.
 *   <li>{@link LibvirtException}: the kind {@link LibvirtException#kind} gives, except that NOT_FOUND
 *       is reserved for get (a domain that vanishes during another operation is a race, worth a
 *       retry).
 *   <li>An {@link IllegalArgumentException} is a value that cannot be put into libvirt XML at all
 *       (a character XML cannot carry): PERMANENT, because the same request fails the same way.
 *   <li>Anything else is a broken link or a bug below the adapter: TRANSIENT.
 * </ul>
 */
final class FailureTranslator {
    private FailureTranslator() {
    }

    /** The contract error for {@code failure}, which happened during {@code call} on {@code host}. */
    static ProviderException translate(RuntimeException failure, Call call, HostSettings host) {
        if (failure instanceof ProviderException verdict) {
            return verdict;
        }
        if (failure instanceof HostCallException link) {
            return linkFailure(link, call, host);
        }
        if (failure instanceof LibvirtException libvirt) {
            return libvirtFailure(libvirt, call, host);
        }
        if (failure instanceof IllegalArgumentException unusable) {
            return call.failure(ErrorKind.PERMANENT, "a value of the request or of host '" + host.name()
                    + "' cannot be given to libvirt: " + unusable.getMessage() + "; change it, retrying cannot help",
                    unusable);
        }
        return call.transientFailure("unexpected failure while talking to host '" + host.name() + "' ("
                + host.destination() + "): " + failure + "; retry, and report it if it repeats", failure);
    }

    private static ProviderException linkFailure(HostCallException link, Call call, HostSettings host) {
        String where = "host '" + host.name() + "' (" + host.destination() + ")";
        return switch (link.reason()) {
            case UNREACHABLE -> call.transientFailure(where + " could not be reached or the connection broke: "
                    + link.getMessage() + "; retry, and if it persists check that sshd and libvirtd run there", link);
            case MISCONFIGURED -> call.failure(ErrorKind.PERMANENT, "the connection to " + where
                    + " cannot work as configured: " + link.getMessage() + "; fix the SSH settings of provider entry '"
                    + call.entry() + "' (sshKeyFile, knownHostsFile, hosts[].user)", link);
            case DEADLINE_EXCEEDED -> call.deadlineExceeded("waiting for " + where, link);
            case INTERRUPTED -> {
                InterruptedException interrupted = new InterruptedException("interrupted while waiting for " + where);
                interrupted.initCause(link);
                yield call.interrupted(interrupted);
            }
        };
    }

    private static ProviderException libvirtFailure(LibvirtException libvirt, Call call, HostSettings host) {
        ErrorKind kind = libvirt.kind();
        if (kind == ErrorKind.NOT_FOUND && call.operation() != Operation.GET) {
            kind = ErrorKind.TRANSIENT;
        }
        String said = "libvirt on host '" + host.name() + "' failed: " + libvirt.getMessage() + " (error "
                + libvirt.code() + ", " + libvirt.rawCode() + ")";
        String advice = switch (kind) {
            case PERMANENT -> "; retrying cannot help: fix the request or the settings of host '" + host.name()
                    + "' in provider entry '" + call.entry() + "'";
            case QUOTA_EXCEEDED -> "; free memory or disk on host '" + host.name()
                    + "' or use a smaller machine type, then retry";
            case NOT_FOUND -> "; it was deleted or never created";
            case TRANSIENT -> "; retry, and if it repeats look at libvirtd's log on host '" + host.name() + "'";
        };
        return call.failure(kind, said + advice, libvirt);
    }
}
