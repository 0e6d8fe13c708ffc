package dev.egressproxies.kvm;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.spi.ProviderContext;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.host.HostCallException;
import dev.egressproxies.kvm.common.host.HostConnections;
import dev.egressproxies.kvm.common.host.HostEndpoint;
import dev.egressproxies.kvm.common.ssh.HostKeyPolicy;
import dev.egressproxies.kvm.common.ssh.SshTunnelSettings;
import dev.egressproxies.kvm.config.KvmConfig;
import dev.egressproxies.kvm.config.KvmHost;

/**
 * The production wiring of a {@code kvm} entry's host connections: per host, kvm-common's SSH
 * tunnel ({@link #tunnelSettings}: key from {@code sshKeyFile}, host keys from
 * {@code knownHostsFile} unless {@code insecureIgnoreHostKey}, {@code handshakeTimeout},
 * {@code keepaliveInterval}) forwarding the host's libvirt socket, libvirt-java connected to the
 * forwarded socket, and kvm-common's caching connection pool around both.
 *
 * <p><b>PLACEHOLDER until kvm-common's connection pool and libvirt-java adapter are merged.</b>
 * The tunnel settings are real; the pool is not there yet, so every host call fails with a
 * {@link HostCallException} of reason {@link HostCallException.Reason#MISCONFIGURED}, which the
 * provider reports as a PERMANENT error (and {@code egressctl check} as a failed check) saying
 * that this build cannot reach hypervisors. Building the provider still succeeds, so
 * configurations load and can be checked. {@link #open} is the only method to change when the
 * pool lands.
 */
final class ProductionHostConnections implements HostConnectionsFactory {

    @Override
    public HostConnections open(String entryName, KvmConfig config, ProviderContext context) {
        return new Unwired(entryName);
    }

    /**
     * The SSH tunnel settings of one host of the entry. The key and known_hosts files are read by
     * the tunnel at each dial, so a key mounted after startup heals the next call.
     */
    static SshTunnelSettings tunnelSettings(KvmConfig config, KvmHost host) {
        HostKeyPolicy hostKeys = config.insecureIgnoreHostKey()
                ? HostKeyPolicy.insecureIgnoreHostKey()
                : HostKeyPolicy.knownHosts(config.knownHostsFile());
        return SshTunnelSettings.of(host.address(), host.port(), host.user(), config.sshKeyFile(), hostKeys,
                        host.socket())
                .withHandshakeTimeout(config.handshakeTimeout())
                .withKeepalive(config.keepaliveInterval(), SshTunnelSettings.DEFAULT_KEEPALIVE_MAX_MISSED);
    }

    /** Connections that refuse every call, saying why. */
    private static final class Unwired implements HostConnections {
        private final String entryName;

        Unwired(String entryName) {
            this.entryName = entryName;
        }

        @Override
        public <T> T call(HostEndpoint host, Deadline deadline, HostCall<T> work) {
            throw new HostCallException(HostCallException.Reason.MISCONFIGURED, host.name(), "this build of"
                    + " provider-kvm has no libvirt connection pool wired in yet, so provider entry '" + entryName
                    + "' cannot reach host " + host.user() + "@" + host.address() + ":" + host.port()
                    + "; use a build that includes kvm-common's connection pool and libvirt adapter", null);
        }

        @Override
        public void close() {
        }
    }
}
