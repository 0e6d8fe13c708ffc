package dev.egressproxies.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.egressproxies.api.ErrorKind;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code images}, {@code images pull} and {@code images prune} in-process on the fake backend,
 * whose bases live in the provider's memory (each run here is a new process's worth of them) and
 * whose instances, in the state file, are their users. The KVM backends' bases are tested on the
 * real stack.
 */
class ImagesCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;
    CommandLineHarness egressctl;

    @BeforeEach
    void configure() throws IOException {
        egressctl = CommandLineHarness.withTwoZoneFakeEntry(temp);
    }

    @Test
    void listsEachZonesBasesWithTheProxiesThatBackOnThem() throws IOException {
        create("one", "zone-a");
        create("two", "zone-a");
        create("three", "zone-b");

        CommandLineHarness.Result table = egressctl.run("images");
        CommandLineHarness.Result json = egressctl.run("images", "--provider", "lab", "-o", "json");

        assertThat(table.exitCode()).as(table.toString()).isZero();
        assertThat(table.out()).contains("HOST", "KEY", "USERS", "STATUS", "lab/zone-a", "2 (one, two)", "lab/zone-b",
                "1 (three)", "in use");
        JsonNode listed = JSON.readTree(json.out());
        assertThat(listed).hasSize(2);
        assertThat(listed.get(0).get("zone").asText()).isEqualTo("zone-a");
        assertThat(listed.get(0).get("userCount").asInt()).isEqualTo(2);
        assertThat(listed.get(0).get("unused").asBoolean()).isFalse();
        assertThat(listed.get(0).get("lease").asText()).isEqualTo("none");
    }

    @Test
    void pullFetchesOntoEveryZoneOrTheOneNamed() throws IOException {
        CommandLineHarness.Result all = egressctl.run("images", "pull", "debian-12", "--provider", "lab");
        CommandLineHarness.Result one = egressctl.run("images", "pull", "debian-12", "--provider", "lab", "--host",
                "zone-b", "-o", "json");

        assertThat(all.exitCode()).as(all.toString()).isZero();
        assertThat(all.out()).contains("lab/zone-a: fetched debian-12.base", "lab/zone-b: fetched debian-12.base");
        JsonNode pulled = JSON.readTree(one.out());
        assertThat(pulled).hasSize(1);
        assertThat(pulled.get(0).get("zone").asText()).isEqualTo("zone-b");
    }

    @Test
    void pullOfAnUnknownImageOrHostIsAUsageError() {
        CommandLineHarness.Result image = egressctl.run("images", "pull", "no-such-image", "--provider", "lab");
        CommandLineHarness.Result host = egressctl.run("images", "pull", "debian-12", "--provider", "lab", "--host",
                "zone-q");

        assertThat(image.exitCode()).as(image.toString()).isEqualTo(ExitCode.of(ErrorKind.PERMANENT));
        assertThat(image.err()).contains("lab/zone-a not pulled", "no-such-image");
        assertThat(host.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(host.err()).contains("'zone-q' is not a host of provider entry 'lab'");
    }

    @Test
    void pruneDryRunSaysWhatItWouldFreeAndPruneSkipsBasesInUse() throws IOException {
        create("one", "zone-a");

        CommandLineHarness.Result dryRun = egressctl.run("images", "prune", "--dry-run");
        CommandLineHarness.Result json = egressctl.run("images", "prune", "--provider", "lab", "--older-than", "7d",
                "-o", "json");

        assertThat(dryRun.exitCode()).as(dryRun.toString()).isZero();
        assertThat(dryRun.out()).contains("would free 0 B in 0 base images (dry run: nothing deleted)");
        JsonNode document = JSON.readTree(json.out());
        assertThat(document.get("dryRun").asBoolean()).isFalse();
        assertThat(document.get("deleted")).isEmpty();
        assertThat(egressctl.run("images").out()).contains("1 (one)");
    }

    @Test
    void aZeroOrMalformedAgeIsAUsageError() {
        CommandLineHarness.Result zero = egressctl.run("images", "prune", "--older-than", "0");

        assertThat(zero.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
    }

    private void create(String name, String zone) {
        CommandLineHarness.Result created = egressctl.run("create", name, "--provider", "lab", "--zone", zone,
                "--machine-type", "small", "--image", "debian-12");
        assertThat(created.exitCode()).as(created.toString()).isZero();
    }
}
