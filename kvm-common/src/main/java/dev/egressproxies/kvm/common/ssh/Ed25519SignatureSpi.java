package dev.egressproxies.kvm.common.ssh;

import java.io.IOException;
import java.security.InvalidKeyException;
import java.security.InvalidParameterException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SignatureSpi;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.bouncycastle.crypto.util.PrivateKeyFactory;
import org.bouncycastle.crypto.util.PublicKeyFactory;

/**
 * Ed25519 signatures with BouncyCastle's lightweight signer: its JCA {@code SignatureSpi} builds a
 * whole {@code BouncyCastleProvider} (hundreds of classes) on first use, this one nothing but the
 * signer. Keys of any provider are taken through their standard encodings (PKCS#8, X.509).
 * Public, with a public constructor: the JDK instantiates it for {@link Ed25519Registrar}'s provider.
 */
public final class Ed25519SignatureSpi extends SignatureSpi {
    private final Ed25519Signer signer = new Ed25519Signer();

    /** For the JDK's provider machinery. */
    public Ed25519SignatureSpi() {
        super();
    }

    @Override
    protected void engineInitVerify(PublicKey publicKey) throws InvalidKeyException {
        signer.init(false, parameters(publicKey, Ed25519PublicKeyParameters.class));
    }

    @Override
    protected void engineInitSign(PrivateKey privateKey) throws InvalidKeyException {
        signer.init(true, parameters(privateKey, Ed25519PrivateKeyParameters.class));
    }

    @Override
    protected void engineUpdate(byte b) {
        signer.update(b);
    }

    @Override
    protected void engineUpdate(byte[] bytes, int offset, int length) {
        signer.update(bytes, offset, length);
    }

    @Override
    protected byte[] engineSign() {
        return signer.generateSignature();
    }

    @Override
    protected boolean engineVerify(byte[] signature) {
        return signer.verifySignature(signature);
    }

    @Override
    @Deprecated
    protected void engineSetParameter(String parameter, Object value) {
        throw new InvalidParameterException("Ed25519 takes no parameters");
    }

    @Override
    @Deprecated
    protected Object engineGetParameter(String parameter) {
        throw new InvalidParameterException("Ed25519 takes no parameters");
    }

    private static AsymmetricKeyParameter parameters(java.security.Key key, Class<?> expected)
            throws InvalidKeyException {
        byte[] encoded = key == null ? null : key.getEncoded();
        if (encoded == null) {
            throw new InvalidKeyException("not an encodable Ed25519 key: " + key);
        }
        AsymmetricKeyParameter parameters;
        try {
            parameters = key instanceof PrivateKey ? PrivateKeyFactory.createKey(encoded)
                    : PublicKeyFactory.createKey(encoded);
        } catch (IOException | IllegalArgumentException unreadable) {
            throw new InvalidKeyException("not an Ed25519 key: " + unreadable.getMessage(), unreadable);
        }
        if (!expected.isInstance(parameters)) {
            throw new InvalidKeyException("not an Ed25519 key: " + parameters.getClass().getSimpleName());
        }
        return parameters;
    }
}
