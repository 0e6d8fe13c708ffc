package dev.egressproxies.kvm.common.ssh;

import java.util.List;
import java.util.Optional;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.signature.Signature;

/**
 * The host key check of one connection attempt: MINA's verifier callback, plus the explanation of
 * a refusal, which MINA itself reduces to "Server key did not validate".
 */
interface HostKeyCheck extends ServerKeyVerifier {

    /** Returns the check that {@code policy} asks for, reading its files now. */
    static HostKeyCheck forPolicy(HostKeyPolicy policy, String host, int port) throws SshTunnelException {
        if (policy instanceof HostKeyPolicy.KnownHostsFile knownHostsFile) {
            return new KnownHostsCheck(KnownHosts.load(knownHostsFile.file()), host, port);
        }
        return new AcceptAnyHostKey(host, port);
    }

    /** Returns why the host's key was refused, once it was. */
    Optional<SshTunnelException> rejection();

    /**
     * Returns {@code available} reordered so that the host key algorithms this check can verify come
     * first: sshd picks the first algorithm of the client's list it has a key for, and a host with
     * several host keys would otherwise present one that known_hosts does not list.
     */
    default List<NamedFactory<Signature>> preferVerifiableAlgorithms(List<NamedFactory<Signature>> available) {
        return available;
    }
}
