from django.core.exceptions import ValidationError


class CharacterClassValidator:
    """A strong password mixes at least three of: lower case, upper case, digits, symbols."""

    def validate(self, password, user=None):
        classes = [
            any(c.islower() for c in password),
            any(c.isupper() for c in password),
            any(c.isdigit() for c in password),
            any(not c.isalnum() for c in password),
        ]
        if sum(classes) < 3:
            raise ValidationError(
                "The password must mix at least three of: lower-case letters, upper-case letters, digits, symbols.",
                code="password_too_simple",
            )

    def get_help_text(self):
        return "Mix at least three of: lower-case letters, upper-case letters, digits, symbols."
