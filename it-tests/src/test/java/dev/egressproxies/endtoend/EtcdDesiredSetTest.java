package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.api.Provider;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.fake.FakeProvider;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.runtime.config.ConfigException;
import dev.egressproxies.runtime.replicas.Etcd;
import dev.egressproxies.runtime.replicas.EtcdDesiredSet;
import dev.egressproxies.runtime.replicas.EtcdOptions;
import dev.egressproxies.runtime.serve.DesiredSource;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The desired set the replicas share, kept in the test stack's etcd: written checked, read by
 * every replica, and checked again only when its revision moves.
 */
@Tag("integration")
class EtcdDesiredSetTest {
    private final EtcdCluster cluster = EtcdCluster.load();
    private final String prefix = "/egressctl/desired-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current()
            .nextLong()) + "/";

    @TempDir
    Path temp;

    private EtcdDesiredSet desiredSet() throws Exception {
        Etcd etcd = new Etcd(new EtcdOptions(cluster.endpoints().stream().map(URI::create).toList(), null, null,
                null, null, null, prefix));
        Provider fake = ConfiguredProviders.provider("/conformance/fake.yaml", "fake-conformance", FakeProvider.class,
                new TestProviderContext(temp.resolve("state")));
        return new EtcdDesiredSet(etcd, entry -> entry.equals("fake-conformance") ? Optional.of(fake)
                : Optional.empty(), Clock.systemUTC());
    }

    private Path file(String... names) throws Exception {
        StringBuilder yaml = new StringBuilder("proxies:\n");
        for (String name : names) {
            yaml.append("  - {name: ").append(name).append(", provider: fake-conformance, zone: zone-a,")
                    .append(" machineType: small, image: debian-12}\n");
        }
        return Files.writeString(temp.resolve("desired.yaml"), yaml);
    }

    @Test
    void anUnchangedRevisionIsNotCheckedAgainAndANewOneIs() throws Exception {
        try (EtcdDesiredSet reader = desiredSet(); EtcdDesiredSet writer = desiredSet()) {
            assertThat(reader.load().revision()).as("before any apply").isEqualTo(EtcdDesiredSet.NONE);
            EtcdDesiredSet.Written first = writer.write(file("a", "b"));
            DesiredSource.Loaded loaded = reader.load();
            assertThat(loaded.revision()).isEqualTo("etcd:" + first.revision()).isEqualTo(reader.revision());
            assertThat(loaded.state().proxies()).extracting(proxy -> proxy.request().name()).containsExactly("a", "b");

            DesiredSource.Loaded again = reader.load();
            assertThat(again.revision()).isEqualTo(loaded.revision());
            assertThat(again.state()).as("the set checked at the first read").isSameAs(loaded.state());

            EtcdDesiredSet.Written second = writer.write(file("a", "b", "c"));
            DesiredSource.Loaded changed = reader.load();
            assertThat(changed.revision()).isEqualTo("etcd:" + second.revision());
            assertThat(changed.state().proxies()).extracting(proxy -> proxy.request().name()).containsExactly("a", "b", "c");
        }
    }

    @Test
    void aDocumentNotWrittenByApplyIsRefusedEveryTimeUntilApplyWritesOne() throws Exception {
        try (EtcdDesiredSet reader = desiredSet(); EtcdDesiredSet writer = desiredSet()) {
            writer.write(file("a"));
            DesiredSource.Loaded good = reader.load();
            cluster.put(prefix + "desired", "not json");
            for (int read = 0; read < 2; read++) {
                assertThatThrownBy(reader::load).isInstanceOf(ConfigException.class)
                        .hasMessageContaining("is not JSON").hasMessageContaining("egressctl apply -f FILE --etcd");
            }
            writer.write(file("a", "d"));
            assertThat(reader.load().state().proxies()).extracting(proxy -> proxy.request().name()).containsExactly("a", "d");
            assertThat(reader.load().revision()).isNotEqualTo(good.revision());
        }
    }
}
