package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.runtime.replicas.Etcd;
import dev.egressproxies.runtime.replicas.EtcdException;
import dev.egressproxies.runtime.replicas.EtcdOptions;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The etcd client of the replicated serve against the test stack's real etcd: the transactions
 * leadership rests on, leases, the watch, moving to another member when one is down, TLS with a
 * client certificate and a user, and the messages when something is wrong.
 */
@Tag("integration")
class EtcdClientTest {
    private final EtcdCluster cluster = EtcdCluster.load();
    private final String prefix = "/egressctl/client-" + random() + "/";

    @TempDir
    Path temp;

    @AfterEach
    void restore() {
        cluster.startAll();
    }

    private Etcd etcd(List<String> endpoints) {
        return new Etcd(new EtcdOptions(endpoints.stream().map(URI::create).toList(), null, null, null, null, null,
                prefix));
    }

    @Test
    void aKeyIsCreatedOnceAndDeletedOnlyByTheLeaseThatHoldsIt() {
        Etcd etcd = etcd(cluster.endpoints());
        long first = etcd.grantLease(Duration.ofSeconds(10));
        long second = etcd.grantLease(Duration.ofSeconds(10));
        assertThat(etcd.create(prefix + "leaders/a", "r1", first)).isTrue();
        assertThat(etcd.create(prefix + "leaders/a", "r2", second)).as("a second create").isFalse();
        assertThat(etcd.get(prefix + "leaders/a").first()).hasValueSatisfying(key -> {
            assertThat(key.value()).isEqualTo("r1");
            assertThat(key.lease()).isEqualTo(first);
        });
        assertThat(etcd.deleteIfLease(prefix + "leaders/a", second)).as("deleted by another lease").isFalse();
        assertThat(etcd.deleteIfLease(prefix + "leaders/a", first)).isTrue();
        assertThat(etcd.get(prefix + "leaders/a").first()).isEmpty();
    }

    @Test
    void aRevokedLeaseTakesItsKeysAndCannotBeRenewed() {
        Etcd etcd = etcd(cluster.endpoints());
        long lease = etcd.grantLease(Duration.ofSeconds(10));
        assertThat(etcd.keepAlive(lease)).isEqualTo(10);
        etcd.put(prefix + "replicas/r1", "{}", lease);
        etcd.revoke(lease);
        assertThat(etcd.getPrefix(prefix + "replicas/").keys()).isEmpty();
        assertThat(etcd.keepAlive(lease)).as("renewing a revoked lease").isZero();
    }

    @Test
    void theWatchReportsAChangeMadeThroughAnotherMember() throws Exception {
        Etcd watching = etcd(List.of(cluster.endpoints().get(0)));
        Etcd writing = etcd(List.of(cluster.endpoints().get(2)));
        Semaphore changes = new Semaphore(0);
        try (AutoCloseable watch = watching.watchPrefix(prefix + "status/", changes::release)) {
            assertThat(changes.tryAcquire(10, TimeUnit.SECONDS)).as("the watch's start").isTrue();
            writing.put(prefix + "status/a", "{}", 0);
            assertThat(changes.tryAcquire(10, TimeUnit.SECONDS)).as("the change").isTrue();
        }
    }

    @Test
    void callsMoveToAnotherMemberWhenOneIsDown() {
        Etcd etcd = etcd(cluster.endpoints());
        etcd.put(prefix + "k", "before", 0);
        cluster.stop(1);
        long revision = etcd.put(prefix + "k", "after", 0);
        assertThat(revision).isPositive();
        assertThat(etcd.get(prefix + "k").first()).hasValueSatisfying(key -> assertThat(key.value())
                .isEqualTo("after"));
    }

    @Test
    void noMemberAnsweringNamesEachOne() {
        Etcd etcd = etcd(List.of("http://127.0.0.1:1", "http://127.0.0.1:2"));
        assertThatThrownBy(() -> etcd.get(prefix + "k")).isInstanceOf(EtcdException.class)
                .hasMessageContaining("no etcd member answered").hasMessageContaining("http://127.0.0.1:1")
                .hasMessageContaining("http://127.0.0.1:2").hasMessageContaining("connection refused");
    }

    @Test
    void tlsWithAClientCertificateAndAUserWorksAndAWrongPasswordSaysWhatToCheck() throws Exception {
        EtcdCluster.Tls tls = cluster.tls();
        String tlsPrefix = "/egressctl/tls-" + random() + "/";
        Etcd etcd = new Etcd(new EtcdOptions(List.of(URI.create(tls.endpoint())), tls.ca(), tls.cert(),
                tls.key(), tls.user(), tls.passwordFile(), tlsPrefix));
        etcd.put(tlsPrefix + "k", "v", 0);
        assertThat(etcd.get(tlsPrefix + "k").first()).isPresent();

        Path wrong = Files.writeString(temp.resolve("wrong"), "not-the-password\n");
        Etcd refused = new Etcd(new EtcdOptions(List.of(URI.create(tls.endpoint())), tls.ca(), tls.cert(),
                tls.key(), tls.user(), wrong, tlsPrefix));
        assertThatThrownBy(() -> refused.get(tlsPrefix + "k")).isInstanceOf(EtcdException.class)
                .hasMessageContaining("--etcd-user " + tls.user()).hasMessageContaining("--etcd-password-file");

        Etcd anonymous = new Etcd(new EtcdOptions(List.of(URI.create(tls.endpoint())), tls.ca(), tls.cert(),
                tls.key(), null, null, tlsPrefix));
        assertThatThrownBy(() -> anonymous.get(tlsPrefix + "k")).isInstanceOf(EtcdException.class)
                .hasMessageContaining("--etcd-user");
    }

    private static String random() {
        byte[] bytes = new byte[4];
        ThreadLocalRandom.current().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
