package dev.egressproxies.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Placement in apply's plan, and what cordon, uncordon and drain refuse, in-process on the fake
 * backend (which places, but keeps no cordons: the KVM backends' cordons are tested on the real
 * stack).
 */
class FleetCommandsTest {
    @TempDir
    Path temp;
    CommandLineHarness egressctl;

    @BeforeEach
    void configure() throws IOException {
        egressctl = CommandLineHarness.withTwoZoneFakeEntry(temp);
    }

    @Test
    void applyShowsWhereItPlacesProxiesWithoutZoneAndSpreadsThem() throws IOException {
        Path set = desired("""
                  - {name: one, provider: lab, machineType: small, image: debian-12}
                  - {name: two, provider: lab, machineType: small, image: debian-12}
                """);

        CommandLineHarness.Result dryRun = egressctl.run("apply", "-f", set.toString(), "--dry-run");
        CommandLineHarness.Result applied = egressctl.run("apply", "-f", set.toString());
        CommandLineHarness.Result again = egressctl.run("apply", "-f", set.toString());

        assertThat(dryRun.out()).contains("+ create lab one in zone zone-a: fewest instances of entry 'lab'",
                "+ create lab two in zone zone-b: fewest instances of entry 'lab'");
        assertThat(applied.exitCode()).as(applied.toString()).isZero();
        assertThat(applied.out()).contains("-> lab/zone-a/one", "-> lab/zone-b/two");
        assertThat(again.out()).as("a proxy without zone is never moved").contains("No changes");
    }

    @Test
    void aBackendWithoutCordonsRefusesOneAndSaysWhy() {
        CommandLineHarness.Result result = egressctl.run("cordon", "lab/zone-a");

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCode.of(ErrorKind.PERMANENT));
        assertThat(result.err()).contains("cordon on provider entry 'lab': this backend", "cannot cordon zones");
    }

    @Test
    void aHostThatIsNoneOfTheEntrysOrNotInTheFormIsAUsageError() {
        CommandLineHarness.Result unknown = egressctl.run("uncordon", "lab/zone-q");
        CommandLineHarness.Result malformed = egressctl.run("cordon", "lab");

        assertThat(unknown.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(unknown.err()).contains("'zone-q' is not a host of provider entry 'lab'", "[zone-a, zone-b]");
        assertThat(malformed.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(malformed.err()).contains("'lab' names no host: use ENTRY/HOST");
    }

    @Test
    void drainRefusesProxiesItCannotRecreateElsewhereAndChangesNothing() throws IOException {
        assertThat(egressctl.run("create", "pinned", "--provider", "lab", "--zone", "zone-a", "--machine-type", "small",
                "--image", "debian-12").exitCode()).isZero();
        assertThat(egressctl.run("create", "stray", "--provider", "lab", "--zone", "zone-a", "--machine-type", "small",
                "--image", "debian-12").exitCode()).isZero();
        Path set = desired("""
                  - {name: pinned, provider: lab, zone: zone-a, machineType: small, image: debian-12}
                """);

        CommandLineHarness.Result result = egressctl.run("drain", "lab/zone-a", "-f", set.toString());

        assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(result.err()).contains("cannot drain lab/zone-a; nothing was changed",
                "pinned is pinned to zone zone-a in the desired set", "stray is not in the desired set");
        assertThat(egressctl.run("list").out()).contains("lab/zone-a/pinned", "lab/zone-a/stray");
    }

    private Path desired(String proxies) throws IOException {
        return Files.writeString(temp.resolve("proxies.yaml"), "proxies:\n" + proxies);
    }
}
