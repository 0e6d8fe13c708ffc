package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.egressproxies.runtime.config.ConfigException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ServeSettingsTest {
    private static ServeSettings settings(String listen, Path cert, Path key, Path token) {
        return new ServeSettings(ServeSettings.parseListen(listen), Duration.ofSeconds(60),
                Duration.ofSeconds(60), cert, key, token, LogFormat.TEXT, Set.of(), 4, Backoff.DEFAULT);
    }

    @Test
    void loopbackNeedsNeitherTlsNorToken() {
        assertThat(settings("127.0.0.1:8484", null, null, null).loopback()).isTrue();
        assertThat(settings("[::1]:0", null, null, null).loopback()).isTrue();
    }

    @Test
    void anyOtherAddressRefusesToStartNamingEachMissingSetting() {
        assertThatThrownBy(() -> settings("0.0.0.0:8484", null, null, null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("set --tls-cert and --tls-key")
                .hasMessageContaining("set --token-file");
        assertThatThrownBy(() -> settings("0.0.0.0:8484", Path.of("c.pem"), Path.of("k.pem"), null))
                .hasMessageNotContaining("--tls-cert and")
                .hasMessageContaining("set --token-file");
    }

    @Test
    void aCertificateNeedsItsKey() {
        assertThatThrownBy(() -> settings("127.0.0.1:8484", Path.of("c.pem"), null, null))
                .hasMessageContaining("--tls-cert is set without --tls-key");
    }

    @Test
    void parsesListenAddresses() {
        InetSocketAddress address = ServeSettings.parseListen("127.0.0.1:0");
        assertThat(address.getPort()).isZero();
        assertThatThrownBy(() -> ServeSettings.parseListen("8484")).hasMessageContaining("is not HOST:PORT");
        assertThatThrownBy(() -> ServeSettings.parseListen("localhost:99999")).hasMessageContaining("0 to 65535");
    }
}
