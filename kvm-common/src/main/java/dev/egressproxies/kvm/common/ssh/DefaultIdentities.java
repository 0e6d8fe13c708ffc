package dev.egressproxies.kvm.common.ssh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.sshd.client.config.keys.ClientIdentity;
import org.apache.sshd.common.config.keys.BuiltinIdentities;

/**
 * OpenSSH's default identities: the key files {@code ssh} tries when neither its command line nor
 * ssh_config names one ({@code IdentityFile}), in its order ({@code ssh(1)}, option {@code -i}: RSA,
 * ECDSA, Ed25519). The security-key ({@code _sk}) kinds need a hardware token and DSA is gone from
 * OpenSSH, so neither is tried. File names come from MINA's {@link ClientIdentity}, as its own
 * default-identity loader names them.
 */
public final class DefaultIdentities {
    /** The key types in the order OpenSSH tries their files. */
    static final List<String> TYPES = List.of(BuiltinIdentities.Constants.RSA, BuiltinIdentities.Constants.ECDSA,
            BuiltinIdentities.Constants.ED25519);

    private DefaultIdentities() {
    }

    /**
     * The home OpenSSH reads {@code ~/.ssh} from: the account's home in the password database, not
     * {@code $HOME}, which is what the JDK reports as {@code user.home}.
     */
    public static Path home() {
        return Path.of(System.getProperty("user.home"));
    }

    /** Every default identity file under {@code home}, in OpenSSH's order, whether it exists or not. */
    public static List<Path> candidates(Path home) {
        Path folder = home.resolve(".ssh");
        return TYPES.stream().map(type -> folder.resolve(ClientIdentity.getIdentityFileName(type))).toList();
    }

    /** The default identity files that exist under {@code home}, in OpenSSH's order. */
    public static List<Path> existing(Path home) {
        return candidates(home).stream().filter(Files::isRegularFile).toList();
    }
}
