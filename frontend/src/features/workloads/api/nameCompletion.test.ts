import { describe, expect, it } from "vitest";
import { nameOptions, tablesInDdl } from "./nameCompletion";

const DDL = `ddl:
  - CREATE TABLE Books (BookId INT64 NOT NULL, Title STRING(100), Tags ARRAY<STRING(MAX)>, CONSTRAINT fk FOREIGN KEY (BookId) REFERENCES Shelves (ShelfId)) PRIMARY KEY (BookId)
  - CREATE TABLE Loans (BookId INT64 NOT NULL, LoanId STRING(36) NOT NULL) PRIMARY KEY (BookId, LoanId), INTERLEAVE IN PARENT Books`;

describe("table and column completion", () => {
  it("reads the tables and columns a definition's DDL creates", () => {
    expect(tablesInDdl(DDL)).toEqual([
      { name: "Books", columns: [{ name: "BookId", type: "INT64" }, { name: "Title", type: "STRING(100)" }, { name: "Tags", type: "ARRAY<STRING(MAX)>" }] },
      { name: "Loans", columns: [{ name: "BookId", type: "INT64" }, { name: "LoanId", type: "STRING(36)" }] },
    ]);
  });

  it("offers the target's tables and the definition's, tables first, each column once with its table", () => {
    const target = [{ name: "Shelves", columns: [{ name: "ShelfId", type: "INT64" }] }];
    const options = nameOptions(tablesInDdl(DDL), target);
    expect(options.map((o) => o.label)).toEqual(["Shelves", "Books", "Loans", "ShelfId", "BookId", "Title", "Tags", "LoanId"]);
    expect(options.find((o) => o.label === "LoanId")?.detail).toBe("Loans STRING(36)");
  });
});
