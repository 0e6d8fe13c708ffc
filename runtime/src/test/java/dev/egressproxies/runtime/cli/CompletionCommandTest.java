package dev.egressproxies.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The completion scripts and the values they ask for: entries from the config, IDs from the local cache. */
class CompletionCommandTest {
    @TempDir
    Path temp;
    Path config;
    CommandLineHarness egressctl;

    @BeforeEach
    void configure() throws IOException {
        config = Files.writeString(temp.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    stateFile: %s
                  - name: other
                    type: fake
                """.formatted(temp.resolve("lab.json")));
        egressctl = new CommandLineHarness(temp.resolve("home"), temp, Map.of());
    }

    @Test
    void entriesComeFromTheConfigInUse() throws IOException {
        assertThat(egressctl.run("completion", "--candidates", "entries").out()).isEqualTo("lab\nother\n");
        Path another = Files.writeString(temp.resolve("another.yaml"), "providers: [{name: solo, type: fake}]\n");
        assertThat(egressctl.run("--config", another.toString(), "completion", "--candidates", "entries").out())
                .isEqualTo("solo\n");
        assertThat(egressctl.run("--config", temp.resolve("missing.yaml").toString(), "completion", "--candidates",
                "entries").out()).as("a broken config completes nothing, silently").isEmpty();
    }

    @Test
    void idsAreThoseCreateListAndDeleteSaw() {
        Path cache = stateDirectory().resolve(IdCache.FILE_NAME);
        assertThat(ids()).isEmpty();
        egressctl.run("create", "a", "--provider", "lab", "--machine-type", "small", "--image", "debian-12");
        egressctl.run("create", "b", "--provider", "lab", "--machine-type", "small", "--image", "debian-12");
        assertThat(ids()).isEqualTo("lab/zone-a/a\nlab/zone-a/b\n");

        egressctl.run("delete", "lab/zone-a/a");
        assertThat(ids()).isEqualTo("lab/zone-a/b\n");

        // An instance made elsewhere, and one deleted elsewhere: list brings the cache up to date.
        egressctl.run("create", "c", "--provider", "lab", "--machine-type", "small", "--image", "debian-12");
        egressctl.run("delete", "lab/zone-a/b");
        try {
            Files.writeString(cache, "lab/zone-a/b\nother/zone-a/kept\ngone/zone-a/x\n");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(egressctl.run("list", "--provider", "lab").exitCode()).isZero();
        assertThat(ids()).as("list replaces the IDs of the entries it listed")
                .isEqualTo("other/zone-a/kept\ngone/zone-a/x\nlab/zone-a/c\n");
    }

    private Path stateDirectory() {
        return temp.resolve("home/.local/state/egress");
    }

    /** The cached IDs, a line each, as the scripts read them. */
    private String ids() {
        return new IdCache(stateDirectory()).ids().stream().map(id -> id + "\n").collect(java.util.stream.Collectors.joining());
    }

    @Test
    void aWaitForDeletedForgetsTheIds() throws IOException {
        egressctl.run("create", "a", "--provider", "lab", "--machine-type", "small", "--image", "debian-12");
        Files.writeString(stateDirectory().resolve(IdCache.FILE_NAME), "lab/zone-a/a\nlab/zone-a/ghost\n");
        assertThat(egressctl.run("wait", "lab/zone-a/ghost", "--for", "deleted").exitCode()).isZero();
        assertThat(ids()).isEqualTo("lab/zone-a/a\n");
    }

    @Test
    void listCreatesNoStateDirectoryForTheCache() {
        assertThat(egressctl.run("list").exitCode()).isZero();
        assertThat(temp.resolve("home/.local/state")).doesNotExist();
    }

    @Test
    void theBashScriptIsPicocliAndAsksEgressctlForEntriesAndIds() {
        CommandLineHarness.Result bash = egressctl.run("completion", "bash");
        assertThat(bash.exitCode()).as(bash.toString()).isZero();
        assertThat(bash.out()).contains("function _complete_egressctl()", "function _picocli_egressctl_wait()",
                "'--progress'", "completion --candidates entries",
                "cat \"$state/egress/completion-ids\"", "complete -F _egressctl_complete -o default egressctl")
                .doesNotContain("'--candidates'");
        assertThat(egressctl.run("completion", "zsh").out()).contains("bashcompinit").isEqualTo(bash.out());
    }

    @Test
    void theFishScriptCoversCommandsOptionsAndValues() {
        String fish = egressctl.run("completion", "fish").out();
        assertThat(fish).contains("complete -c egressctl -f")
                .contains("-a wait -d 'Waits until proxies are running with an address, or deleted.'")
                .contains("complete -c egressctl -s o -l output -x")
                .contains("complete -c egressctl -l config -r -F")
                .contains("-n '__fish_seen_subcommand_from create' -l provider -x -a '(__egressctl_entries)'")
                .contains("-n '__fish_seen_subcommand_from wait' -l for -x -a 'running deleted'")
                .contains("-n '__fish_seen_subcommand_from get' -a '(__egressctl_ids)'")
                .contains("-n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'")
                .contains("-l progress -x -a 'auto always never'")
                .doesNotContain("candidates -x");
    }

    @Test
    void anUnknownShellIsAUsageError() {
        CommandLineHarness.Result result = egressctl.run("completion", "tcsh");
        assertThat(result.exitCode()).isEqualTo(ExitCode.USAGE_OR_CONFIG);
        assertThat(result.err()).contains("bash, zsh or fish");
    }
}
