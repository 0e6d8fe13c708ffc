package dev.egressproxies.runtime.replicas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.runtime.config.ConfigException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EtcdOptionsTest {
    @TempDir
    Path temp;

    @Test
    void endpointsAreParsedAndNormalised() {
        assertThat(EtcdOptions.parseEndpoints(" https://10.0.0.1:2379/ ,https://etcd-2:2379,")).containsExactly(
                URI.create("https://10.0.0.1:2379"), URI.create("https://etcd-2:2379"));
    }

    @Test
    void anEndpointWithoutSchemeOrPortSaysWhatAnEndpointLooksLike() {
        assertThatThrownBy(() -> EtcdOptions.parseEndpoints("127.0.0.1:2379")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("'127.0.0.1:2379' is not an http(s) URL with host and port")
                .hasMessageContaining("https://10.0.0.1:2379");
        assertThatThrownBy(() -> EtcdOptions.parseEndpoints("http://etcd")).hasMessageContaining("host and port");
        assertThatThrownBy(() -> new EtcdOptions(List.of(), null, null, null, null, null, null))
                .hasMessageContaining("--etcd names no member");
    }

    @Test
    void optionsThatDoNotFitTogetherAreNamed() {
        List<URI> secure = List.of(URI.create("https://a:1"));
        assertThatThrownBy(() -> new EtcdOptions(List.of(URI.create("http://a:1"), URI.create("https://b:2")), null,
                null, null, null, null, null)).hasMessageContaining("mixes http and https");
        assertThatThrownBy(() -> new EtcdOptions(secure, null, Path.of("c.pem"), null, null, null, null))
                .hasMessageContaining("--etcd-cert and --etcd-key go together");
        assertThatThrownBy(() -> new EtcdOptions(List.of(URI.create("http://a:1")), Path.of("ca.pem"), null, null,
                null, null, null)).hasMessageContaining("are for https members");
        assertThatThrownBy(() -> new EtcdOptions(secure, null, null, null, "u", null, null))
                .hasMessageContaining("--etcd-user and --etcd-password-file go together");
        assertThatThrownBy(() -> new EtcdOptions(secure, null, null, null, null, null, "egressctl"))
                .hasMessageContaining("must start and end with '/'");
        assertThat(new EtcdOptions(secure, null, null, null, null, null, null).prefix()).isEqualTo("/egressctl/");
    }

    @Test
    void thePasswordIsTheFirstLineOfItsFile() throws Exception {
        Path file = Files.writeString(temp.resolve("password"), "s3cret\nignored\n");
        assertThat(new EtcdOptions(List.of(URI.create("https://a:1")), null, null, null, "egress", file, null)
                .password()).isEqualTo("s3cret");
        Path empty = Files.writeString(temp.resolve("empty"), "");
        assertThatThrownBy(() -> new EtcdOptions(List.of(URI.create("https://a:1")), null, null, null, "egress", empty,
                null).password()).hasMessageContaining("is empty");
    }

    @Test
    void leaseTimingKeepsTheRenewDeadlineInsideTheLeaseAndTheRetriesInsideTheDeadline() {
        assertThat(LeaseTiming.DEFAULT.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
        assertThatThrownBy(() -> new LeaseTiming(Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2)))
                .hasMessageContaining("must be shorter than --lease-duration");
        assertThatThrownBy(() -> new LeaseTiming(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(10)))
                .hasMessageContaining("--retry-period");
        assertThatThrownBy(() -> new LeaseTiming(Duration.ofMillis(1500), Duration.ofSeconds(1), Duration.ofMillis(200)))
                .hasMessageContaining("whole seconds");
    }
}
