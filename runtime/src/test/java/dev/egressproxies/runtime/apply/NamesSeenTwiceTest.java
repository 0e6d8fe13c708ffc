package dev.egressproxies.runtime.apply;

import static dev.egressproxies.runtime.apply.RecordingProvider.instance;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.InstanceState;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class NamesSeenTwiceTest {
    private static final Deadline DEADLINE = Deadline.after(Duration.ofSeconds(5));
    private final Instance movedFrom = running("zone-a", "moved");
    private final Instance movedTo = running("zone-b", "moved");
    private final Instance still = running("zone-a", "still");

    @Test
    void aListingWithEveryNameOnceIsReturnedWithoutALookup() {
        RecordingProvider lab = new RecordingProvider("lab", "zone-a", "zone-b");
        List<Instance> listed = List.of(movedFrom, still);
        assertThat(NamesSeenTwice.recheck(lab, listed, DEADLINE)).isSameAs(listed);
        assertThat(lab.calls()).isEmpty();
    }

    @Test
    void theCopyOfAMovedNameThatIsGoneIsLeftOutAndOnlyTheNameSeenTwiceIsLookedUp() {
        RecordingProvider lab = new RecordingProvider("lab", "zone-a", "zone-b").having(movedTo, still);
        assertThat(NamesSeenTwice.recheck(lab, List.of(movedFrom, still, movedTo), DEADLINE))
                .containsExactly(still, movedTo);
        assertThat(lab.calls()).containsExactly("get zone-a/moved", "get zone-b/moved");
    }

    @Test
    void twoCopiesThatAreBothThereAreBothKept() {
        RecordingProvider lab = new RecordingProvider("lab", "zone-a", "zone-b").having(movedFrom, movedTo);
        assertThat(NamesSeenTwice.recheck(lab, List.of(movedFrom, movedTo), DEADLINE))
                .containsExactly(movedFrom, movedTo);
    }

    @Test
    void aLookupThatFailsOtherwiseThanNotFoundKeepsTheCopy() {
        RecordingProvider lab = new RecordingProvider("lab", "zone-a", "zone-b").having(movedTo)
                .failing("get zone-a/moved");
        assertThat(NamesSeenTwice.recheck(lab, List.of(movedFrom, movedTo), DEADLINE))
                .containsExactly(movedFrom, movedTo);
    }

    private static Instance running(String zone, String name) {
        return instance(zone, name, InstanceState.RUNNING, "small", "debian-12", "");
    }
}
