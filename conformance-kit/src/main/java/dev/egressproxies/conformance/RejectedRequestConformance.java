package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.api.conformance.Capability;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The conformance cases of {@code create} with invalid requests: each is PERMANENT, names the
 * entry and the instance, and creates nothing; and {@code validate} rejects it first with the same
 * kind and detail.
 */
abstract class RejectedRequestConformance extends ConformanceGroup {

    RejectedRequestConformance(Supplier<ConformanceSession> session) {
        super(session);
    }

    @Test
    void unknownZoneIsPermanentAndCreatesNothing() {
        String zone = names().name("no-such-zone");
        Placement primary = target().primaryPlacement();

        ProviderException error = assertRejected(placedAt(new Placement(zone, primary.machineType(), primary.image())));

        assertThat(error.detail()).as("the detail names the unknown zone").contains(zone);
    }

    @Test
    void unknownMachineTypeIsPermanentAndCreatesNothing() {
        String machineType = names().name("no-such-type");
        Placement primary = target().primaryPlacement();

        ProviderException error = assertRejected(placedAt(new Placement(primary.zone(), machineType, primary.image())));

        assertThat(error.detail()).as("the detail names the unknown machine type").contains(machineType);
    }

    @Test
    void unknownImageIsPermanentAndCreatesNothing() throws Throwable {
        Placement primary = target().primaryPlacement();
        dependingOn(Capability.OPEN_IMAGE_NAMESPACE, () -> {
            for (String image : List.of("", "  ", "no image\n\u0000reference")) {
                assertRejected(placedAt(new Placement(primary.zone(), primary.machineType(), image)));
            }
        }, () -> {
            String image = names().name("no-such-image");

            ProviderException error = assertRejected(placedAt(new Placement(primary.zone(), primary.machineType(),
                    image)));

            assertThat(error.detail()).as("the detail names the unknown image").contains(image);
        });
    }

    @Test
    void nameLongerThan63CharactersIsPermanent() {
        assertRejected(session().request(names().nameOfLength(64)));
    }

    @Test
    void nameWithUpperCaseIsPermanent() {
        assertRejected(session().request(names().name("Upper")));
    }

    @Test
    void nameWithUnderscoreIsPermanent() {
        assertRejected(session().request(names().name("under_score")));
    }

    @Test
    void nameWithDotIsPermanent() {
        assertRejected(session().request(names().name("dotted.name")));
    }

    @Test
    void nameStartingWithHyphenIsPermanent() {
        assertRejected(session().request("-" + names().name("leading")));
    }

    @Test
    void nameEndingWithHyphenIsPermanent() {
        assertRejected(session().request(names().name("trailing-")));
    }

    @Test
    void emptyNameIsPermanent() {
        assertRejected(session().request(""));
    }

    @Test
    void emptyUidIsPermanent() {
        String name = names().name("nouid");
        assertRejected(new CreateRequest(name, "", target().primaryPlacement(), ConformanceSession.CLOUD_INIT));
    }

    @Test
    void uidWithSpaceIsPermanent() {
        String name = names().name("spaceuid");
        assertRejected(new CreateRequest(name, "owner 1", target().primaryPlacement(), ConformanceSession.CLOUD_INIT));
    }

    @Test
    void uidLongerThanTheLimitIsPermanent() {
        String name = names().name("longuid");
        String uid = "u".repeat(CreateRequest.MAX_UID_LENGTH + 1);
        assertRejected(new CreateRequest(name, uid, target().primaryPlacement(), ConformanceSession.CLOUD_INIT));
    }

    @Test
    void cloudInitOverTheSizeLimitIsPermanent() {
        String name = names().name("hugeinit");
        String cloudInit = "x".repeat(CreateRequest.MAX_CLOUD_INIT_BYTES + 1);
        assertRejected(new CreateRequest(name, ConformanceSession.uidFor(name), target().primaryPlacement(), cloudInit));
    }

    private CreateRequest placedAt(Placement placement) {
        return session().request(names().name("misplaced"), placement);
    }

    private ProviderException assertRejected(CreateRequest request) {
        return session().assertRejected(request);
    }
}
