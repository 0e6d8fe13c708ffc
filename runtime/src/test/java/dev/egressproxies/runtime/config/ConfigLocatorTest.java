package dev.egressproxies.runtime.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLocatorTest {
    @TempDir
    Path temp;
    Path home;
    Path work;

    @BeforeEach
    void directories() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
    }

    @Test
    void theOptionWinsOverEverythingElse() throws IOException {
        Path option = write(temp.resolve("option.yaml"));
        write(temp.resolve("env.yaml"));
        write(work.resolve("egress.yaml"));
        ConfigLocator locator = new ConfigLocator(Map.of("EGRESS_CONFIG", temp.resolve("env.yaml").toString()), work, home);
        assertThat(locator.locate(option)).contains(option);
    }

    @Test
    void theVariableWinsOverTheWorkingDirectory() throws IOException {
        Path variable = write(temp.resolve("env.yaml"));
        write(work.resolve("egress.yaml"));
        assertThat(new ConfigLocator(Map.of("EGRESS_CONFIG", variable.toString()), work, home).locate(null))
                .contains(variable);
    }

    @Test
    void theWorkingDirectoryWinsOverTheUserConfig() throws IOException {
        Path local = write(work.resolve("egress.yaml"));
        write(home.resolve(".config/egress/config.yaml"));
        assertThat(new ConfigLocator(Map.of(), work, home).locate(null)).contains(local);
    }

    @Test
    void theUserConfigHonoursXdgConfigHome() throws IOException {
        Path xdg = write(temp.resolve("xdg/egress/config.yaml"));
        write(home.resolve(".config/egress/config.yaml"));
        assertThat(new ConfigLocator(Map.of("XDG_CONFIG_HOME", temp.resolve("xdg").toString()), work, home)
                .locate(null)).contains(xdg);
        Path plain = home.resolve(".config/egress/config.yaml");
        assertThat(new ConfigLocator(Map.of(), work, home).locate(null)).contains(plain);
        write(work.resolve("xdg/egress/config.yaml"));
        assertThat(new ConfigLocator(Map.of("XDG_CONFIG_HOME", "xdg"), work.resolve("elsewhere"), home).locate(null))
                .as("a relative XDG_CONFIG_HOME is ignored").contains(plain);
    }

    @Test
    void nothingFoundMeansTheBuiltInDefault() {
        assertThat(new ConfigLocator(Map.of(), work, home).locate(null)).isEmpty();
    }

    @Test
    void aMissingExplicitFileIsAnErrorNotAFallback() {
        assertThatThrownBy(() -> new ConfigLocator(Map.of(), work, home).locate(temp.resolve("nope.yaml")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("nope.yaml")
                .hasMessageContaining("--config");
        assertThatThrownBy(() -> new ConfigLocator(Map.of("EGRESS_CONFIG", "/no/such.yaml"), work, home).locate(null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("$EGRESS_CONFIG");
    }

    private static Path write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, "providers: []\n");
    }
}
