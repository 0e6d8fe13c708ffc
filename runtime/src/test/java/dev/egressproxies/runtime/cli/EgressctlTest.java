package dev.egressproxies.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.runtime.wiring.TestServicesModule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line run in-process against the fake backend and a probe plugin, through the real
 * config loading and registry, with the test component's fixed clock and span recorder.
 */
class EgressctlTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;
    Path config;
    CommandLineHarness egressctl;

    @BeforeEach
    void configure() throws IOException {
        config = Files.writeString(temp.resolve("egress.yaml"), """
                providers:
                  - name: local
                    type: fake
                    zones: [zone-a, zone-b]
                    stateFile: %s
                  - name: probe
                    type: probe
                """.formatted(temp.resolve("state.json")));
        egressctl = new CommandLineHarness(temp.resolve("home"), temp, Map.of());
    }

    @Test
    void createGetListDeleteShareStateAcrossInvocations() throws IOException {
        CommandLineHarness.Result created = egressctl.run("create", "demo", "--provider", "local", "--zone", "zone-a",
                "--machine-type", "small", "--image", "debian-12", "--uid", "u-1");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(created.out().trim()).isEqualTo("local/zone-a/demo");

        JsonNode instance = json(egressctl.run("get", "local/zone-a/demo", "-o", "json"));
        assertThat(instance.get("state").asText()).isEqualTo("RUNNING");
        assertThat(instance.get("ip").asText()).startsWith("198.51.100.");
        assertThat(instance.get("uid").asText()).isEqualTo("u-1");
        assertThat(instance.get("createdAt").asText()).isEqualTo(TestServicesModule.NOW.toString());

        assertThat(json(egressctl.run("list", "--provider", "local", "-o", "json"))).hasSize(1);
        assertThat(egressctl.run("delete", "local/zone-a/demo").exitCode()).isZero();
        assertThat(egressctl.run("delete", "local/zone-a/demo").exitCode()).as("delete is idempotent").isZero();
        CommandLineHarness.Result gone = egressctl.run("get", "local/zone-a/demo");
        assertThat(gone.exitCode()).isEqualTo(ExitCode.NOT_FOUND);
        assertThat(gone.err()).contains("local").contains("zone-a/demo");
    }

    @Test
    void globalOptionsWorkBeforeAndAfterTheSubcommand() throws IOException {
        assertThat(json(egressctl.run("-o", "json", "list", "--provider", "local")).isArray()).isTrue();
        assertThat(json(egressctl.run("list", "--provider", "local", "--output=JSON")).isArray()).isTrue();
    }

    @Test
    void tableOutputHasAHeaderAndAlignedRows() {
        egressctl.run("create", "demo", "--provider", "local", "--zone", "zone-b", "--machine-type", "small",
                "--image", "debian-12");
        CommandLineHarness.Result listed = egressctl.run("list", "--provider", "local");
        assertThat(listed.out().lines().findFirst()).hasValueSatisfying(header ->
                assertThat(header).startsWith("ID").contains("STATE").contains("IP"));
        assertThat(listed.out()).contains("local/zone-b/demo").contains("RUNNING");
    }

    @Test
    void pluginSpansReachTheRuntimesTelemetry() {
        CommandLineHarness.Result created = egressctl.run("create", "traced", "--provider", "probe",
                "--machine-type", "m", "--image", "i");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(created.spans()).singleElement().satisfies(span -> {
            assertThat(span.getName()).isEqualTo("probe.create");
            assertThat(span.getAttributes().asMap().values()).contains("probe");
        });
    }

    @Test
    void providersListsEntriesAndPlugins() throws IOException {
        JsonNode providers = json(egressctl.run("providers", "-o", "json"));
        assertThat(providers.get("entries")).extracting(entry -> entry.get("name").asText())
                .containsExactly("local", "probe");
        assertThat(providers.get("plugins")).extracting(plugin -> plugin.get("type").asText())
                .contains("fake", "probe");
        assertThat(providers.get("config").asText()).isEqualTo(config.toString());
    }

    @Test
    void checkRunsEachEntrysPreflight() throws IOException {
        CommandLineHarness.Result checked = egressctl.run("check", "-o", "json");
        assertThat(checked.exitCode()).as(checked.toString()).isZero();
        assertThat(json(checked).get("checks")).extracting(check -> check.get("entry").asText())
                .contains("local", "probe");
        assertThat(egressctl.run("check", "nowhere").exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
    }

    @Test
    void versionNamesThePluginsFound() {
        CommandLineHarness.Result version = egressctl.run("--version");
        assertThat(version.exitCode()).isZero();
        assertThat(version.out()).startsWith("egressctl ").contains("plugin fake ").contains("plugin probe ");
    }

    @Test
    void everySubcommandHasHelp() {
        for (String command : new String[] {"providers", "check", "create", "get", "delete", "list", "apply"}) {
            CommandLineHarness.Result help = egressctl.run(command, "--help");
            assertThat(help.exitCode()).as(help.toString()).isZero();
            assertThat(help.out()).as(help.toString()).startsWith("Usage: egressctl " + command);
        }
    }

    @Test
    void helpListsEveryExitCodeTheReadmeDoes() {
        CommandLineHarness.Result help = egressctl.run("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out().replaceAll("\\s+", " ")).contains("0 ok", "1 other failure", "2 usage or config error",
                "3 not found", "4 transient (retry)", "5 quota exceeded (retry later)", "130 interrupted (Ctrl-C)");
    }

    @Test
    void aBadConfigExitsTwoNamingFileFieldAndEntry() throws IOException {
        Path bad = Files.writeString(temp.resolve("bad.yaml"), """
                providers:
                  - name: local
                    type: fake
                    zonez: [zone-a]
                """);
        CommandLineHarness.Result result = egressctl.run("--config", bad.toString(), "list");
        assertThat(result.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(result.err()).contains(bad.toString()).contains("providers[0].zonez: unknown field")
                .contains("entry 'local'");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void errorsMapToTheirExitCodes() {
        CommandLineHarness.Result badName = egressctl.run("create", "Bad_Name", "--provider", "local", "--zone",
                "zone-a", "--machine-type", "small", "--image", "debian-12");
        assertThat(badName.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(badName.err()).contains("DNS label");

        assertThat(egressctl.run("get", "not-an-id").exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(egressctl.run("get", "nowhere/zone-a/x").err()).contains("no provider entry named 'nowhere'")
                .contains("local, probe");
        assertThat(egressctl.run("create", "x", "--provider", "local").exitCode())
                .as("missing required options").isEqualTo(ExitCode.USAGE_OR_CONFIG);
        CommandLineHarness.Result ambiguous = egressctl.run("create", "x", "--machine-type", "small", "--image", "i");
        assertThat(ambiguous.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(ambiguous.err()).contains("--provider is required");
        assertThat(egressctl.run("--timeout", "-5s", "list").exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
    }

    @Test
    void theBuiltInDefaultIsUsedWhenNoConfigIsFound() throws IOException {
        Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
        CommandLineHarness bare = new CommandLineHarness(temp.resolve("bare-home"), elsewhere, Map.of());
        CommandLineHarness.Result created = bare.run("create", "demo", "--machine-type", "small", "--image",
                "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(created.out().trim()).isEqualTo("fake/zone-a/demo");
        assertThat(temp.resolve("bare-home/.local/state/egress/fake/instances.json")).exists();
        assertThat(json(bare.run("providers", "-o", "json")).get("config").asText()).contains("built-in default");
    }

    @Test
    void applyConvergesAndASecondRunPlansNothing() throws IOException {
        Path set = Files.writeString(temp.resolve("proxies.yaml"), """
                proxies:
                  - {name: one, provider: local, zone: zone-a, machineType: small, image: debian-12}
                  - {name: two, provider: local, zone: zone-b, machineType: small, image: debian-12}
                """);
        egressctl.run("create", "stale", "--provider", "local", "--zone", "zone-a", "--machine-type", "small",
                "--image", "debian-12");

        CommandLineHarness.Result dryRun = egressctl.run("apply", "-f", set.toString(), "--dry-run");
        assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
        assertThat(dryRun.out()).contains("2 to create").contains("1 to delete").contains("Dry run");
        assertThat(json(egressctl.run("list", "-o", "json", "--provider", "local"))).hasSize(1);

        CommandLineHarness.Result applied = egressctl.run("apply", "-f", set.toString());
        assertThat(applied.exitCode()).as(applied.toString()).isZero();
        assertThat(json(egressctl.run("list", "-o", "json", "--provider", "local")))
                .extracting(instance -> instance.get("name").asText()).containsExactlyInAnyOrder("one", "two");

        CommandLineHarness.Result again = egressctl.run("apply", "-f", set.toString(), "-o", "json");
        assertThat(json(again).get("plan")).isEmpty();
        assertThat(json(again).get("unchanged").asInt()).isEqualTo(2);
    }

    @Test
    void aBadDesiredSetChangesNothing() throws IOException {
        egressctl.run("create", "keep", "--provider", "local", "--zone", "zone-a", "--machine-type", "small",
                "--image", "debian-12");
        Path set = Files.writeString(temp.resolve("proxies.yaml"), """
                proxies:
                  - {name: ok, provider: local, zone: zone-a, machineType: small, image: debian-12}
                  - {name: Not_OK, provider: local, zone: zone-a, machineType: small, image: debian-12}
                """);
        CommandLineHarness.Result result = egressctl.run("apply", "-f", set.toString());
        assertThat(result.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(result.err()).contains("proxies[1]").contains("nothing was changed");
        assertThat(json(egressctl.run("list", "-o", "json", "--provider", "local")))
                .extracting(instance -> instance.get("name").asText()).containsExactly("keep");
    }

    private static JsonNode json(CommandLineHarness.Result result) throws IOException {
        assertThat(result.exitCode()).as(result.toString()).isZero();
        return JSON.readTree(result.out());
    }
}
