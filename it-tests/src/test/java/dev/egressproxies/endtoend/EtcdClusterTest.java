package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The stack's etcd members through {@link EtcdCluster}, on the real processes: the cluster
 * replicates, keeps writing with one member stopped or killed and catches that member up when it
 * returns, refuses writes fast without a quorum and keeps its data across a stop of all members;
 * the TLS member wants both a client certificate of the stack's CA and a user. Every test starts
 * all members again when it ends, so later tests find the cluster healthy.
 */
@Tag("integration")
class EtcdClusterTest {
    private static final Duration HEALTHY_WITHIN = Duration.ofSeconds(30);

    private EtcdCluster cluster;
    private String prefix;

    @BeforeEach
    void healthyCluster() {
        cluster = EtcdCluster.load();
        cluster.startAll();
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        prefix = "/egress-it/etcd-cluster-test-" + HexFormat.of().formatHex(random) + "/";
    }

    @AfterEach
    void restoreCluster() {
        cluster.startAll();
        cluster.deletePrefix(prefix);
    }

    @Test
    void everyMemberAnswersAsPartOfOneCluster() throws Exception {
        assertThat(cluster.endpoints())
                .containsExactly("http://127.0.0.1:23791", "http://127.0.0.1:23792", "http://127.0.0.1:23793");
        assertThat(cluster.endpointsArgument())
                .isEqualTo("http://127.0.0.1:23791,http://127.0.0.1:23792,http://127.0.0.1:23793");
        cluster.awaitHealthy(HEALTHY_WITHIN);

        Map<String, String> clientUrls = new HashMap<>();
        for (JsonNode member : new ObjectMapper().readTree(cluster.etcdctl().call("member", "list", "--write-out=json"))
                .path("members")) {
            clientUrls.put(member.path("name").asText(), member.path("clientURLs").path(0).asText());
        }
        assertThat(clientUrls).containsOnly(Map.entry("egress-etcd-1", cluster.endpoint(1)),
                Map.entry("egress-etcd-2", cluster.endpoint(2)), Map.entry("egress-etcd-3", cluster.endpoint(3)));
        assertThat(cluster.healthyMembers()).containsExactly(1, 2, 3);
        for (int member : EtcdCluster.members()) {
            assertThat(cluster.etcdctl(member).run("endpoint", "health").ok()).as("member %d healthy", member).isTrue();
        }
    }

    @Test
    void aKeyWrittenOnMemberOneIsReadFromMemberThree() {
        cluster.etcdctl(1).put(prefix + "plain", "written on member 1");
        cluster.etcdctl(1).put(prefix + "awkward", "-starts with a dash\nand has a newline");

        assertThat(cluster.etcdctl(3).get(prefix + "plain")).contains("written on member 1");
        assertThat(cluster.etcdctl(3).getPrefix(prefix)).containsExactly(
                Map.entry(prefix + "awkward", "-starts with a dash\nand has a newline"),
                Map.entry(prefix + "plain", "written on member 1"));
        assertThat(cluster.get(prefix + "absent")).isEmpty();
        assertThat(cluster.deletePrefix(prefix)).isEqualTo(2);
        assertThat(cluster.getPrefix(prefix)).isEmpty();
    }

    @Test
    void withOneMemberStoppedWritesSucceedAndTheMemberCatchesUpWhenStarted() {
        cluster.stop(2);
        try {
            cluster.awaitQuorum(HEALTHY_WITHIN);
            assertThat(cluster.healthyMembers()).containsExactly(1, 3);

            cluster.put(prefix + "while-2-was-stopped", "quorum of two");
            cluster.etcdctl(3).put(prefix + "written-on-3", "also");
            assertThat(cluster.etcdctl(1).get(prefix + "while-2-was-stopped")).contains("quorum of two");
        } finally {
            cluster.start(2);
        }
        cluster.awaitHealthy(HEALTHY_WITHIN);
        assertThat(cluster.etcdctl(2).getPrefix(prefix)).containsOnlyKeys(
                prefix + "while-2-was-stopped", prefix + "written-on-3");
    }

    @Test
    void aKilledLeaderIsReplacedAndComesBackWithItsData() {
        cluster.put(prefix + "before", "kill");
        int leader = cluster.leader().orElseThrow(() -> new AssertionError("no etcd member leads"));
        int follower = leader % EtcdCluster.MEMBERS + 1;
        cluster.kill(leader);
        try {
            // Writes wait for the others' election.
            cluster.awaitQuorum(HEALTHY_WITHIN);
            assertThat(cluster.healthyMembers()).doesNotContain(leader);
            assertThat(cluster.leader()).isPresent().isNotEqualTo(OptionalInt.of(leader));
            cluster.etcdctl(follower).put(prefix + "after", "kill");
        } finally {
            cluster.start(leader);
        }
        cluster.awaitHealthy(HEALTHY_WITHIN);
        assertThat(cluster.etcdctl(leader).getPrefix(prefix)).containsOnlyKeys(prefix + "before", prefix + "after");
    }

    @Test
    void withAllMembersStoppedAWriteFailsFastAndTheDataSurvivesTheRestart() {
        cluster.put(prefix + "kept", "across a stop of all members");
        EtcdCluster.Result refused;
        cluster.stopAll();
        try {
            refused = cluster.etcdctl().withTimeouts(Duration.ofMillis(500), Duration.ofSeconds(1))
                    .run("put", prefix + "lost", "nobody takes this");
        } finally {
            cluster.startAll();
        }

        assertThat(refused.ok()).as("a write without any member: %s", refused).isFalse();
        assertThat(refused.took()).as("time until the write failed").isLessThan(Duration.ofSeconds(10));
        assertThat(cluster.get(prefix + "kept")).contains("across a stop of all members");
        assertThat(cluster.get(prefix + "lost")).isEmpty();
    }

    @Test
    void theTlsMemberWantsAClientCertificateAndAUser() throws Exception {
        EtcdCluster.Tls tls = cluster.tls();
        assertThat(tls.endpoint()).isEqualTo("https://127.0.0.1:23794");
        assertThat(tls.user()).isEqualTo("egress");
        assertThat(tls.password()).isNotBlank();
        assertJavaReadsTheClientCredentials(tls);

        String key = "/egressctl/etcd-cluster-test-" + prefix.substring("/egress-it/etcd-cluster-test-".length());
        EtcdCluster.Etcdctl withoutCertificate = new EtcdCluster.Etcdctl(
                List.of("--endpoints=" + tls.endpoint(), "--cacert=" + tls.ca()))
                .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2));
        EtcdCluster.Etcdctl certificateWithoutUser = new EtcdCluster.Etcdctl(List.of("--endpoints=" + tls.endpoint(),
                "--cacert=" + tls.ca(), "--cert=" + tls.cert(), "--key=" + tls.key()));
        EtcdCluster.Etcdctl plainHttp = new EtcdCluster.Etcdctl(
                List.of("--endpoints=" + tls.endpoint().replace("https:", "http:"), "--user=" + tls.user(),
                        "--password=" + tls.password()))
                .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2));

        try {
            assertThat(withoutCertificate.run("put", key + "x", "no certificate").ok())
                    .as("a write without a client certificate").isFalse();
            assertThat(plainHttp.run("put", key + "x", "no TLS").ok()).as("a write over plain HTTP").isFalse();
            EtcdCluster.Result noUser = certificateWithoutUser.run("put", key + "x", "no user");
            assertThat(noUser.ok()).as("a write with the certificate but no user").isFalse();
            assertThat(noUser.err()).contains("permission denied");

            tls.etcdctl().put(key + "x", "certificate and user");
            assertThat(tls.etcdctl().get(key + "x")).contains("certificate and user");
            EtcdCluster.Result outside = tls.etcdctl().run("put", "/outside-egressctl", "not ours");
            assertThat(outside.ok()).as("a write outside /egressctl/").isFalse();
            assertThat(outside.err()).contains("permission denied");
        } finally {
            tls.etcdctl().deletePrefix(key);
        }
        assertThat(tls.etcdctl().get(key + "x")).isEmpty();
    }

    /** What a Java client does with the files: the key is PKCS#8 (no third-party parser needed) and matches the certificate, which the CA signed. */
    private static void assertJavaReadsTheClientCredentials(EtcdCluster.Tls tls) throws Exception {
        String keyPem = Files.readString(tls.key(), StandardCharsets.US_ASCII);
        assertThat(keyPem).startsWith("-----BEGIN PRIVATE KEY-----");
        PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pemBody(keyPem)));
        CertificateFactory certificates = CertificateFactory.getInstance("X.509");
        X509Certificate client = certificate(certificates, tls.cert());
        X509Certificate ca = certificate(certificates, tls.ca());
        client.verify(ca.getPublicKey());
        assertThat(((RSAPublicKey) client.getPublicKey()).getModulus())
                .isEqualTo(((RSAPrivateCrtKey) key).getModulus());
        assertThat(client.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.2");
    }

    private static X509Certificate certificate(CertificateFactory factory, Path file) throws Exception {
        return (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(Files.readAllBytes(file)));
    }

    private static byte[] pemBody(String pem) {
        return Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
    }
}
