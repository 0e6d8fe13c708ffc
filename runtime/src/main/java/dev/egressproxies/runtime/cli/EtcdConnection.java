package dev.egressproxies.runtime.cli;

import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.replicas.EtcdOptions;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The etcd options that {@code serve} and {@code apply} share: where the cluster is, its TLS and
 * its credentials, and egressctl's key prefix in it.
 */
final class EtcdConnection {
    @Option(names = "--etcd", paramLabel = "URL[,URL...]",
            description = "The etcd cluster's client URLs: serve runs as one of several replicas, and apply writes the desired set there.")
    String endpoints;

    @Option(names = "--etcd-ca", paramLabel = "PEM", description = "The CA that signs the etcd members' certificates (https).")
    Path ca;

    @Option(names = "--etcd-cert", paramLabel = "PEM", description = "The client certificate for etcd, with --etcd-key.")
    Path certificate;

    @Option(names = "--etcd-key", paramLabel = "PEM", description = "The client certificate's key (unencrypted PKCS#8 PEM).")
    Path key;

    @Option(names = "--etcd-user", paramLabel = "USER", description = "The etcd user, when the cluster has authentication on.")
    String user;

    @Option(names = "--etcd-password-file", paramLabel = "FILE", description = "A file whose first line is the etcd user's password.")
    Path passwordFile;

    @Option(names = "--etcd-prefix", paramLabel = "PREFIX", defaultValue = EtcdOptions.DEFAULT_PREFIX,
            description = "The key prefix of egressctl's keys in etcd (default ${DEFAULT-VALUE}); one prefix per fleet.")
    String prefix;

    /** The options, or empty when {@code --etcd} is not given (then no other etcd option may be). */
    Optional<EtcdOptions> options() {
        if (endpoints == null) {
            if (ca != null || certificate != null || key != null || user != null || passwordFile != null) {
                throw new ConfigException("the --etcd-* options need --etcd, the"
                        + " cluster's client URLs");
            }
            return Optional.empty();
        }
        return Optional.of(new EtcdOptions(EtcdOptions.parseEndpoints(endpoints), ca, certificate, key, user,
                passwordFile, prefix));
    }
}
