-- The variants this server plays; games will reference them.
CREATE TABLE variants (
    name text PRIMARY KEY,
    pgn_name text NOT NULL UNIQUE,
    start_position text NOT NULL
);

INSERT INTO variants (name, pgn_name, start_position) VALUES
    ('korpalski', 'Korpalski', '8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1'),
    ('glinski', 'Glinski', 'b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1');
