package dev.egressproxies.kvm.common.ssh;

import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.Signature;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.sshd.common.util.security.SecurityProviderRegistrar;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.apache.sshd.common.util.security.eddsa.bouncycastle.BouncyCastleEdDSASupport;
import org.apache.sshd.common.util.security.eddsa.generic.EdDSASupport;

/**
 * MINA SSHD's source of Ed25519: BouncyCastle's Ed25519 key factory and key-pair generator, and its
 * lightweight signer ({@link Ed25519SignatureSpi}), and nothing else of it. MINA's own BouncyCastle registrar would build the whole
 * provider (some 820 classes and every algorithm, about 0.9 s of CPU at the first SSH contact),
 * and take random numbers and PEM parsing from it too; the JDK keeps those here. Registered once,
 * before the first SSH client, by {@link #install()}; MINA's default registrars stay off
 * BouncyCastle.
 */
final class Ed25519Registrar implements SecurityProviderRegistrar {
    private static final String NAME = "Ed25519-BC";
    private static final Set<String> ALGORITHMS = Set.of("ED25519", "EDDSA");
    private static final String EDEC = "org.bouncycastle.jcajce.provider.asymmetric.edec.";
    private static volatile boolean installed;

    private final Provider provider = new Ed25519Provider();

    /** Registers this registrar with MINA, once per JVM; MINA then finds Ed25519 here. */
    static synchronized void install() {
        if (installed) {
            return;
        }
        // MINA's defaults would register the whole BouncyCastle provider as soon as its classes are found.
        System.setProperty(SecurityUtils.SECURITY_PROVIDER_REGISTRARS,
                "org.apache.sshd.common.util.security.SunJCESecurityProviderRegistrar");
        SecurityUtils.registerSecurityProvider(new Ed25519Registrar());
        installed = true;
    }

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public boolean isSupported() {
        return true;
    }

    @Override
    public Provider getSecurityProvider() {
        return provider;
    }

    /** The provider object, not its name: it is never added to the JVM's provider list. */
    @Override
    public boolean isNamedProviderUsed() {
        return false;
    }

    @Override
    public boolean isSecurityEntitySupported(Class<?> entityType, String name) {
        boolean ed25519 = name != null && ALGORITHMS.contains(name.toUpperCase(Locale.ROOT));
        return ed25519 && (KeyFactory.class.isAssignableFrom(entityType)
                || KeyPairGenerator.class.isAssignableFrom(entityType) || Signature.class.isAssignableFrom(entityType));
    }

    @Override
    public Optional<EdDSASupport<?, ?>> getEdDSASupport() {
        return Optional.of(new BouncyCastleEdDSASupport());
    }

    /** BouncyCastle's Ed25519 services under the names MINA asks for. */
    private static final class Ed25519Provider extends Provider {
        private static final long serialVersionUID = 1L;

        Ed25519Provider() {
            super(NAME, "1.0", "BouncyCastle's Ed25519 alone, for MINA SSHD");
            for (String algorithm : new String[] {"Ed25519", "EdDSA"}) {
                putService(new Service(this, "KeyFactory", algorithm, EDEC + "KeyFactorySpi$" + algorithm, null, null));
                putService(new Service(this, "KeyPairGenerator", algorithm, EDEC + "KeyPairGeneratorSpi$" + algorithm,
                        null, null));
                // BouncyCastle's own SignatureSpi would build its whole provider at the first signature.
                putService(new Service(this, "Signature", algorithm, Ed25519SignatureSpi.class.getName(), null,
                        null));
            }
        }
    }
}
