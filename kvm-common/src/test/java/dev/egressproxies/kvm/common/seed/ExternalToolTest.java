package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** Checks that a missing reader fails the build, naming the package to install, rather than skipping. */
class ExternalToolTest {
    @Test
    void aMissingProgramFailsSayingWhichPackageToInstall() {
        ExternalTool missing = new ExternalTool("egress-proxies-no-such-reader", "some-package");
        assertThatThrownBy(missing::executable)
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("egress-proxies-no-such-reader is not installed")
                .hasMessageContaining("apt-get install -y --no-install-recommends some-package");
    }

    @Test
    void aProgramThatFailsFailsTheTestWithItsOutput() {
        ExternalTool isoinfo = ExternalTool.ISOINFO;
        assertThatThrownBy(() -> isoinfo.run("-d", "-i", "/nonexistent/egress-proxies.iso"))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("exited with");
    }

    @Test
    void findsProgramsInSbinEvenWhenPathLacksIt() {
        assertThat(ExternalTool.BLKID.executable()).isExecutable();
    }
}
