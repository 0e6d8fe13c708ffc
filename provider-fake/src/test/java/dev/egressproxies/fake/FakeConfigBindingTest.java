package dev.egressproxies.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.egressproxies.api.ErrorKind;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The settings bind with plain Jackson, through the module's {@code opens} and without annotations,
 * as the registry binds them (it adds its own duration syntax, so ISO durations are used here).
 */
class FakeConfigBindingTest {
    private final ObjectMapper mapper = JsonMapper.builder().addModule(new JavaTimeModule()).build();

    @Test
    void everyFieldBinds() throws Exception {
        FakeConfig config = mapper.readValue("""
                {"zones": ["zone-a", "zone-b"], "machineTypes": ["small", "large"], "images": ["debian-12"],
                 "bootDelay": "PT2S", "stateFile": "/var/lib/egress/fake.json", "operationLog": true,
                 "faults": {"create": {"kind": "TRANSIENT", "failAfter": 2}, "get": {"latency": "PT0.2S"},
                            "delete": {"hang": true}}}
                """, FakeConfig.class);

        assertThat(config.zones()).containsExactly("zone-a", "zone-b");
        assertThat(config.bootDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.stateFile()).isEqualTo(Path.of("/var/lib/egress/fake.json"));
        assertThat(config.operationLog()).isTrue();
        assertThat(config.faults().get("create")).isEqualTo(new FaultConfig(ErrorKind.TRANSIENT, null, false, 2));
        assertThat(config.faults().get("get").latency()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.faults().get("delete").hang()).isTrue();
    }

    @Test
    void anEmptyObjectBindsToTheDefaults() throws Exception {
        assertThat(mapper.readValue("{}", FakeConfig.class)).isEqualTo(FakeConfig.defaults());
    }

    @Test
    void aBadValueFailsWithTheRecordsMessage() {
        assertThatThrownBy(() -> mapper.readValue("{\"faults\": {\"reboot\": {\"hang\": true}}}", FakeConfig.class))
                .hasMessageContaining("unknown operation 'reboot'");
    }
}
