package dev.egressproxies.runtime.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class TableTest {
    @Test
    void padsColumnsToTheWidestCellAndMarksEmptyCells() {
        StringWriter text = new StringWriter();
        new Table("ID", "STATE").row("fake/zone-a/demo", "RUNNING").row("f/b", "").print(new PrintWriter(text));
        assertThat(text.toString().lines()).containsExactly(
                "ID                 STATE",
                "fake/zone-a/demo   RUNNING",
                "f/b                -");
    }

    @Test
    void rejectsRowsOfTheWrongWidth() {
        assertThatThrownBy(() -> new Table("A", "B").row("only one")).isInstanceOf(IllegalArgumentException.class);
    }
}
